/**
 * A machine-readable explanation of where a composition stands and why: `diagnose` reads, and
 * `diagnosisOf` decides from what was read.
 */
import * as v from 'valibot';
import type { Identity } from '../auth/identity.ts';
import { CompositionKinds } from '../cluster/ports.ts';
import { compositionSelector } from '../cluster/render.ts';
import {
  type CompositionRecord,
  effectivePhase,
  isTornDown,
  type Observations,
  OperationKind,
  OperationStatus,
  Phase,
} from '../compositions/model.ts';
import { requireComposition } from '../compositions/reads.ts';
import { type CheckRecord, CheckStatus, Freshness } from '../verification/model.ts';
import type { InsightDeps } from './ports.ts';
import { checkViewNow, freshnessInputs } from './verification.ts';

export const DiagnosisState = {
  Progressing: 'progressing',
  Healthy: 'healthy',
  Unverified: 'unverified',
  Degraded: 'degraded',
  Failed: 'failed',
  Expired: 'expired',
  CleaningUp: 'cleaning_up',
  CleanedUp: 'cleaned_up',
  CleanupFailed: 'cleanup_failed',
  Unknown: 'unknown',
} as const;
export type DiagnosisState = (typeof DiagnosisState)[keyof typeof DiagnosisState];

const Note = v.object({ code: v.string(), message: v.string() });
export const DiagnosisView = v.object({
  composition_id: v.string(),
  phase: v.enum(Phase),
  generation: v.number(),
  observed_generation: v.number(),
  state: v.enum(DiagnosisState),
  blockers: v.array(v.object({ code: v.string(), message: v.string(), component: v.nullable(v.string()) })),
  notes: v.array(Note),
  verification: v.object({
    status: v.picklist(['passed', 'failed', 'unknown', 'none']),
    freshness: v.nullable(v.enum(Freshness)),
    check_id: v.nullable(v.string()),
    generation: v.nullable(v.number()),
    stale_reasons: v.array(v.string()),
  }),
  cleanup: v.object({
    state: v.picklist(['not_started', 'in_progress', 'complete', 'failed', 'unknown']),
    remaining: v.nullable(v.array(v.string())),
  }),
  evidence_id: v.nullable(v.string()),
});
export type DiagnosisView = v.InferOutput<typeof DiagnosisView>;
type Note = DiagnosisView['notes'][number];

/** What a diagnosis is decided from, as read at one moment. */
export interface DiagnosisFacts {
  record: CompositionRecord;
  /** The phase the composition reads as now (`expired` included). */
  phase: Phase;
  latest: CheckRecord | null;
  /** The latest check's freshness now; null while the composition is torn down. */
  freshness: { freshness: Freshness; stale_reasons: string[] } | null;
  /** False when the fingerprint for the latest check's freshness could not be read. */
  fingerprintRead: boolean;
  /** Forks the active operation saw unhealthy. */
  unhealthy: Observations['bad_since'];
  /** While torn down, the objects left (`Kind/name`), null when the cluster could not be read. */
  remaining?: string[] | null;
}

export async function diagnose(deps: InsightDeps, caller: Identity, id: string): Promise<DiagnosisView> {
  const record = await requireComposition(deps, caller, id, 'composition:read');
  const phase = effectivePhase(record, deps.clock.now());
  const latest = (await deps.compositions.listChecks(id, { limit: 1, after: null })).items[0] ?? null;
  const operation = record.active_operation
    ? await deps.compositions.getOperation(id, record.active_operation)
    : null;
  const facts: DiagnosisFacts = {
    record,
    phase,
    latest,
    freshness: null,
    fingerprintRead: true,
    unhealthy: operation?.observations.bad_since ?? {},
  };
  if (isTornDown(phase)) return diagnosisOf({ ...facts, remaining: await remainingObjects(deps, record) });
  if (!latest) return diagnosisOf(facts);
  const inputs = await freshnessInputs(deps, record, [latest]);
  return diagnosisOf({
    ...facts,
    freshness: checkViewNow(inputs, record, latest),
    fingerprintRead: inputs.current !== null,
  });
}

async function remainingObjects(deps: InsightDeps, record: CompositionRecord): Promise<string[] | null> {
  try {
    const remaining = await deps.cluster.list(
      record.namespace,
      CompositionKinds,
      compositionSelector(record.id),
    );
    return remaining.map((o) => `${o.kind}/${o.metadata.name}`).sort();
  } catch {
    return null;
  }
}

export function diagnosisOf(facts: DiagnosisFacts): DiagnosisView {
  const { record, phase, latest } = facts;
  const verification = verificationOf(facts);
  const cleanup = cleanupOf(facts);
  const clusterReadable = facts.fingerprintRead && cleanup.state !== 'unknown';
  const notes = [...verificationNotes(facts), ...rolloutNotes(facts)];
  if (!clusterReadable) {
    notes.push({
      code: 'cluster_unreadable',
      message: 'the cluster could not be read; what it holds is unknown',
    });
  }
  return {
    composition_id: record.id,
    phase,
    generation: record.generation,
    observed_generation: record.observed_generation,
    state: diagnosisState(phase, verification, cleanup.state, clusterReadable),
    blockers: record.observed.blockers,
    notes,
    verification,
    cleanup,
    evidence_id: latest?.id ?? null,
  };
}

function verificationOf({ latest, phase, freshness }: DiagnosisFacts): DiagnosisView['verification'] {
  if (!latest) {
    return { status: 'none', freshness: null, check_id: null, generation: null, stale_reasons: [] };
  }
  const gone = freshness === null;
  return {
    status: latest.status,
    freshness: gone ? Freshness.Stale : freshness.freshness,
    check_id: latest.id,
    generation: latest.generation,
    stale_reasons: gone ? [`the composition is ${phase}`] : freshness.stale_reasons,
  };
}

function verificationNotes({ record, phase, latest, freshness }: DiagnosisFacts): Note[] {
  if (!latest) {
    return phase === Phase.Ready
      ? [{ code: 'verification_missing', message: 'no check has run against this composition yet' }]
      : [];
  }
  const notes: Note[] = [];
  if (freshness && latest.generation !== record.observed_generation) {
    notes.push({
      code: 'verification_old_generation',
      message: `the latest check ran against generation ${latest.generation}`,
    });
  }
  if (freshness?.freshness === Freshness.Stale) {
    notes.push({
      code: 'verification_stale',
      message: `earlier proof no longer holds: ${freshness.stale_reasons.join('; ')}`,
    });
  }
  if (latest.status === CheckStatus.Unknown) {
    notes.push({ code: 'verification_incomplete', message: latest.message });
  }
  return notes;
}

function rolloutNotes({ record, unhealthy }: DiagnosisFacts): Note[] {
  const notes: Note[] = Object.entries(unhealthy).map(([component, bad]) => ({
    code: 'fork_unhealthy',
    message: `fork of ${component} is in ${bad.reason} since ${bad.since}`,
  }));
  if (
    record.phase === Phase.Failed &&
    record.observed_generation > 0 &&
    record.latest_operation.kind === OperationKind.Update
  ) {
    notes.push({
      code: 'previous_generation_serving',
      message: `the rollout of generation ${record.generation} failed; generation ${record.observed_generation} keeps serving`,
    });
  }
  return notes;
}

function cleanupOf({ record, remaining }: DiagnosisFacts): DiagnosisView['cleanup'] {
  if (remaining === undefined) return { state: 'not_started', remaining: null };
  if (remaining === null) return { state: 'unknown', remaining: null };
  const failedDestroy =
    record.active_operation === null && record.latest_operation.status === OperationStatus.Failed;
  const state = remaining.length === 0 ? 'complete' : failedDestroy ? 'failed' : 'in_progress';
  return { state, remaining };
}

/** The state from the phase, refined by the latest check while ready and by the cleanup while destroying. */
export function diagnosisState(
  phase: Phase,
  verification: Pick<DiagnosisView['verification'], 'status' | 'freshness'>,
  cleanup: DiagnosisView['cleanup']['state'],
  clusterReadable: boolean,
): DiagnosisState {
  switch (phase) {
    case Phase.Created:
    case Phase.Provisioning:
    case Phase.Updating:
      return DiagnosisState.Progressing;
    case Phase.Failed:
      return DiagnosisState.Failed;
    case Phase.Expired:
      return DiagnosisState.Expired;
    case Phase.Destroyed:
      return DiagnosisState.CleanedUp;
    case Phase.Destroying:
      if (cleanup === 'unknown') return DiagnosisState.Unknown;
      if (cleanup === 'failed') return DiagnosisState.CleanupFailed;
      return cleanup === 'complete' ? DiagnosisState.CleanedUp : DiagnosisState.CleaningUp;
    case Phase.Ready:
      if (!clusterReadable) return DiagnosisState.Unknown;
      if (verification.status === CheckStatus.Failed) return DiagnosisState.Degraded;
      if (verification.status === CheckStatus.Passed && verification.freshness === Freshness.Fresh) {
        return DiagnosisState.Healthy;
      }
      return DiagnosisState.Unverified;
  }
}
