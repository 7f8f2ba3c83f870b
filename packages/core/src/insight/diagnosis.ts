/**
 * A machine-readable explanation of where a composition stands and why: `diagnose` reads, and
 * `diagnosisOf` decides from what was read.
 */
import * as v from 'valibot';
import type { Identity } from '../auth/identity.ts';
import { type CheckRecord, CheckStatus, Freshness } from '../checks/model.ts';
import { checkViewNow, freshnessInputs } from '../checks/reads.ts';
import { type ClusterPort, CompositionKinds } from '../cluster/ports.ts';
import type { ClusterLookup } from '../cluster/registry.ts';
import { compositionSelector } from '../cluster/render.ts';
import { type CompositionRecord, effectivePhase, isTornDown, Phase } from '../compositions/model.ts';
import { requireComposition } from '../compositions/reads.ts';
import { outwardCause } from '../errors.ts';
import {
  type ClusterUnavailable,
  type Observations,
  OperationKind,
  OperationStatus,
} from '../operations/model.ts';
import { RolloutBlockerCode } from '../rollout/blockers.ts';
import { clusterUnavailableMessage } from '../rollout/clusters.ts';
import type { InsightDeps } from './ports.ts';

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
  /** The cluster the composition runs on (its baseline's when it was created); null when unknown. */
  cluster: v.nullable(v.string()),
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
  /** The active operation waits for its cluster to answer. */
  waiting?: ClusterUnavailable | undefined;
  /** The composition's cluster, and why it cannot be read now (null: it answered). */
  cluster: { name: string | null; problem: Note | null };
  /** While torn down, the objects left (`Kind/name`), null when the cluster could not be read. */
  remaining?: string[] | null;
}

export async function diagnose(deps: InsightDeps, caller: Identity, id: string): Promise<DiagnosisView> {
  const record = await requireComposition(deps, caller, id, 'composition:read');
  const phase = effectivePhase(record, deps.clock.now());
  const cluster = deps.clusters.lookup(record.cluster);
  const [latest, operation, problem] = await Promise.all([
    deps.checks.list(id, { limit: 1, after: null }).then((page) => page.items[0] ?? null),
    record.active_operation ? deps.compositions.getOperation(id, record.active_operation) : null,
    isTornDown(phase) ? null : clusterProblem(cluster),
  ]);
  const facts: DiagnosisFacts = {
    record,
    phase,
    latest,
    freshness: null,
    fingerprintRead: true,
    unhealthy: operation?.observations.bad_since ?? {},
    waiting: operation?.observations.cluster_unavailable,
    cluster: { name: cluster.known ? cluster.name : (record.cluster ?? null), problem },
  };
  if (isTornDown(phase)) {
    const remaining = cluster.known ? await remainingObjects(cluster.cluster, record) : null;
    const unknown = cluster.known ? null : { code: 'unknown_cluster', message: cluster.reason };
    return diagnosisOf({ ...facts, remaining, cluster: { ...facts.cluster, problem: unknown } });
  }
  if (!latest) return diagnosisOf(facts);
  const inputs = await freshnessInputs(deps, record, [latest]);
  return diagnosisOf({
    ...facts,
    freshness: checkViewNow(inputs, record, latest),
    fingerprintRead: inputs.current !== null,
  });
}

/** How long the diagnosis waits for the composition's cluster to say it answers. */
const clusterProbeMs = 2000;

/** Why the composition's cluster cannot be read now: not one of the stage's, or not answering; null when it answers. */
async function clusterProblem(cluster: ClusterLookup): Promise<Note | null> {
  if (!cluster.known) return { code: 'unknown_cluster', message: cluster.reason };
  try {
    await cluster.cluster.health.check(AbortSignal.timeout(clusterProbeMs));
    return null;
  } catch (error) {
    return {
      code: 'cluster_unreadable',
      message: `cluster "${cluster.name}" could not be read (${outwardCause(error)}); what it holds is unknown`,
    };
  }
}

async function remainingObjects(cluster: ClusterPort, record: CompositionRecord): Promise<string[] | null> {
  try {
    const remaining = await cluster.list(record.namespace, CompositionKinds, compositionSelector(record.id));
    return remaining.map((o) => `${o.kind}/${o.metadata.name}`).sort();
  } catch {
    return null;
  }
}

export function diagnosisOf(facts: DiagnosisFacts): DiagnosisView {
  const { record, phase, latest } = facts;
  const verification = verificationOf(facts);
  const cleanup = cleanupOf(facts);
  const clusterReadable = !facts.cluster.problem && facts.fingerprintRead && cleanup.state !== 'unknown';
  const notes = [...verificationNotes(facts), ...rolloutNotes(facts), ...sleepNotes(record)];
  if (!clusterReadable) notes.push(facts.cluster.problem ?? unreadable(facts.cluster.name));
  return {
    composition_id: record.id,
    cluster: facts.cluster.name,
    phase,
    generation: record.generation,
    observed_generation: record.observed_generation,
    state: diagnosisState(phase, verification, cleanup.state, clusterReadable),
    blockers: [...record.observed.blockers, ...waitingBlockers(facts)],
    notes,
    verification,
    cleanup,
    evidence_id: latest?.id ?? null,
  };
}

const unreadable = (cluster: string | null): Note => ({
  code: 'cluster_unreadable',
  message: `${cluster === null ? 'the cluster' : `cluster "${cluster}"`} could not be read; what it holds is unknown`,
});

/** The active operation's step waits for its cluster: a blocker while it lasts. */
function waitingBlockers({ record, waiting }: DiagnosisFacts): DiagnosisView['blockers'] {
  if (!waiting) return [];
  const message = clusterUnavailableMessage(waiting, record.latest_operation.kind);
  return [{ code: RolloutBlockerCode.ClusterUnavailable, message, component: null }];
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

/** A preview asleep is neither failed nor unready: its forks wake on the next request (docs/sleep.md). */
function sleepNotes({ sleep }: CompositionRecord): Note[] {
  if (!sleep || sleep.state === 'awake') return [];
  return [
    {
      code: sleep.state,
      message: `its forks are ${sleep.state === 'sleeping' ? 'scaled to zero' : 'coming back from zero'} since ${sleep.since}; the next request or message wakes them`,
    },
  ];
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
      return clusterReadable ? DiagnosisState.Progressing : DiagnosisState.Unknown;
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
