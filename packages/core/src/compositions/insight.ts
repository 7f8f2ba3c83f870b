/**
 * Reads that explain a composition: bounded log snapshots, diagnosis, verification with freshness,
 * and observability links. Unknown or unreadable inputs are reported as such, never as success.
 */
import * as v from 'valibot';
import { logSelector } from '../catalog/model.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import type { Clock } from '../clock.ts';
import { Label } from '../cluster/objects.ts';
import { type ClusterPort, CompositionKinds } from '../cluster/ports.ts';
import { compositionSelector, forkSelector } from '../cluster/render.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import type { FrontendBinding, FrontendStore } from '../frontends/model.ts';
import { frontendStaleReasons } from '../frontends/service.ts';
import type { Page, PageRequest } from '../paging.ts';
import { fingerprint } from '../verification/fingerprint.ts';
import {
  CheckKind,
  type CheckRecord,
  CheckStatus,
  type CheckView,
  checkView,
  type Fingerprint,
  Freshness,
} from '../verification/model.ts';
import { type CompositionRecord, effectivePhase, OperationStatus, Phase } from './model.ts';
import type { CompositionStore } from './ports.ts';

export interface InsightDeps {
  compositions: CompositionStore;
  catalog: CatalogStore;
  cluster: ClusterPort;
  clock: Clock;
  /** Frontend checks are stale once their binding changed. */
  frontends: FrontendStore;
}

export const logLimits = {
  tailLines: { default: 200, max: 1000 },
  maxBytes: { default: 65_536, max: 262_144 },
  sinceSeconds: { max: 86_400 },
  /** Pods read per snapshot; more are reported as truncated. */
  maxPods: 20,
} as const;

export interface LogQuery {
  tail_lines: number;
  since_seconds: number | null;
  max_bytes: number;
  previous: boolean;
}

export const LogSnapshot = v.object({
  message: v.string(),
  component: v.string(),
  source: v.picklist(['override', 'shared-baseline']),
  composition_filtered: v.boolean(),
  streams: v.array(
    v.object({ pod: v.string(), container: v.string(), text: v.string(), truncated: v.boolean() }),
  ),
  partial: v.boolean(),
  truncated: v.boolean(),
});
export type LogSnapshot = v.InferOutput<typeof LogSnapshot>;

async function requireRecord(
  deps: Pick<InsightDeps, 'compositions'>,
  id: string,
): Promise<CompositionRecord> {
  const record = await deps.compositions.get(id);
  if (!record) throw new ProblemError(ErrorCode.NotFound, `composition "${id}" not found`);
  return record;
}

/** A bounded snapshot: `tail_lines` per pod, `max_bytes` in total, overrides filtered to the composition's fork. */
export async function componentLogs(
  deps: InsightDeps,
  id: string,
  component: string,
  query: LogQuery,
): Promise<LogSnapshot> {
  const record = await requireRecord(deps, id);
  const catalog = await deps.catalog.readProject(record.project);
  const profile = catalog?.components[component]?.spec;
  const inBaseline = catalog?.baselines[record.baseline]?.spec.components[component] !== undefined;
  if (!profile || !inBaseline) {
    throw new ProblemError(ErrorCode.NotFound, `component "${component}" is not part of composition "${id}"`);
  }
  const overridden = component in record.desired.images;
  const source = overridden ? 'override' : 'shared-baseline';
  const selector = overridden
    ? forkSelector(id, component)
    : [
        ...Object.entries(logSelector(profile)).map(([k, val]) => `${k}=${val}`),
        `!${Label.Composition}`,
      ].join(',');
  const snapshot: LogSnapshot = {
    message: '',
    component,
    source,
    composition_filtered: overridden,
    streams: [],
    partial: false,
    truncated: false,
  };
  let pods: Awaited<ReturnType<ClusterPort['listPods']>>;
  try {
    pods = (await deps.cluster.listPods(record.namespace, selector)).sort((a, b) =>
      a.metadata.name < b.metadata.name ? -1 : 1,
    );
  } catch (error) {
    return {
      ...snapshot,
      partial: true,
      message: `the cluster could not be read: ${(error as Error).message}`,
    };
  }
  if (pods.length > logLimits.maxPods) snapshot.truncated = true;
  let budget = query.max_bytes;
  let unread = 0;
  for (const pod of pods.slice(0, logLimits.maxPods)) {
    if (budget <= 0) {
      snapshot.truncated = true;
      break;
    }
    try {
      // One line more than asked tells whether the tail cut anything.
      const text = await deps.cluster.podLogs(record.namespace, pod.metadata.name, {
        container: profile.workload.container,
        tailLines: query.tail_lines + 1,
        sinceSeconds: query.since_seconds,
        limitBytes: budget,
        previous: query.previous,
      });
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const cutByTail = lines.length > query.tail_lines;
      const kept = `${lines.slice(cutByTail ? 1 : 0).join('\n')}${lines.length && text.endsWith('\n') ? '\n' : ''}`;
      const bytes = Buffer.byteLength(text);
      const cutByBytes = bytes >= budget;
      budget -= Math.min(bytes, budget);
      snapshot.streams.push({
        pod: pod.metadata.name,
        container: profile.workload.container,
        text: kept,
        truncated: cutByTail || cutByBytes,
      });
      if (cutByBytes) snapshot.truncated = true;
    } catch {
      unread++;
      snapshot.partial = true;
    }
  }
  const where = `${snapshot.streams.length} pod${snapshot.streams.length === 1 ? '' : 's'} of ${component} (${source})`;
  snapshot.message = [
    pods.length === 0 ? `no pods of ${component} (${source}) found` : where,
    unread ? `${unread} pod log${unread === 1 ? '' : 's'} could not be read` : '',
    snapshot.truncated ? 'cut at a limit' : '',
  ]
    .filter(Boolean)
    .join('; ');
  return snapshot;
}

/** The fingerprint of a composition as it stands now; null when it cannot be read. */
async function currentFingerprint(deps: InsightDeps, record: CompositionRecord): Promise<Fingerprint | null> {
  const catalog = await deps.catalog.readProject(record.project);
  if (!catalog) return null;
  try {
    return await fingerprint(deps.cluster, catalog, record);
  } catch {
    return null;
  }
}

export async function listVerification(
  deps: InsightDeps,
  id: string,
  page: PageRequest,
): Promise<Page<CheckView>> {
  const record = await requireRecord(deps, id);
  const checks = await deps.compositions.listChecks(id, page);
  if (checks.items.length === 0) return { items: [], next_cursor: checks.next_cursor };
  const gone = record.phase === Phase.Destroying || record.phase === Phase.Destroyed;
  const current = gone ? null : await currentFingerprint(deps, record);
  const bindings = gone ? new Map() : await bindingsOf(deps, record, checks.items);
  return {
    items: checks.items.map((check) =>
      gone
        ? {
            ...checkView(check, null),
            freshness: Freshness.Stale,
            stale_reasons: [`the composition is ${record.phase}`],
          }
        : checkView(check, current, frontendStaleReasons(check, record, bindingOf(bindings, check))),
    ),
    next_cursor: checks.next_cursor,
  };
}

type Bindings = Map<string, FrontendBinding | null>;
const bindingKey = (name: string, revision: string) => `${name}#${revision}`;

/** The current binding of each frontend check's frontend revision, read once per revision. */
async function bindingsOf(
  deps: InsightDeps,
  record: CompositionRecord,
  checks: readonly CheckRecord[],
): Promise<Bindings> {
  const now = deps.clock.now();
  const wanted = new Map<string, { name: string; revision: string }>();
  for (const check of checks) {
    if (check.kind === CheckKind.Frontend && check.frontend) {
      wanted.set(bindingKey(check.frontend.name, check.frontend.revision), check.frontend);
    }
  }
  const entries = await Promise.all(
    [...wanted].map(
      async ([key, f]) => [key, await deps.frontends.get(record.project, f.name, f.revision, now)] as const,
    ),
  );
  return new Map(entries);
}

function bindingOf(bindings: Bindings, check: CheckRecord): FrontendBinding | null {
  return check.frontend
    ? (bindings.get(bindingKey(check.frontend.name, check.frontend.revision)) ?? null)
    : null;
}

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

/** A machine-readable explanation of where the composition stands and why. */
export async function diagnose(deps: InsightDeps, id: string): Promise<DiagnosisView> {
  const record = await requireRecord(deps, id);
  const now = deps.clock.now();
  const phase = effectivePhase(record, now);
  const notes: { code: string; message: string }[] = [];
  const latest = (await deps.compositions.listChecks(id, { limit: 1, after: null })).items[0];
  const operation = record.active_operation
    ? await deps.compositions.getOperation(id, record.active_operation)
    : null;

  let verification: DiagnosisView['verification'] = {
    status: 'none',
    freshness: null,
    check_id: null,
    generation: null,
    stale_reasons: [],
  };
  const tearingDown = phase === Phase.Destroying || phase === Phase.Destroyed;
  let clusterReadable = true;
  if (latest) {
    const current = tearingDown ? null : await currentFingerprint(deps, record);
    if (!tearingDown && current === null) clusterReadable = false;
    const bindings = tearingDown ? new Map() : await bindingsOf(deps, record, [latest]);
    const view = checkView(
      latest,
      current,
      frontendStaleReasons(latest, record, bindingOf(bindings, latest)),
    );
    verification = {
      status: latest.status,
      freshness: tearingDown ? Freshness.Stale : view.freshness,
      check_id: latest.id,
      generation: latest.generation,
      stale_reasons: tearingDown ? [`the composition is ${phase}`] : view.stale_reasons,
    };
    if (!tearingDown && latest.generation !== record.observed_generation) {
      notes.push({
        code: 'verification_old_generation',
        message: `the latest check ran against generation ${latest.generation}`,
      });
    }
    if (verification.freshness === Freshness.Stale && !tearingDown) {
      notes.push({
        code: 'verification_stale',
        message: `earlier proof no longer holds: ${view.stale_reasons.join('; ')}`,
      });
    }
    if (latest.status === CheckStatus.Unknown)
      notes.push({ code: 'verification_incomplete', message: latest.message });
  } else if (phase === Phase.Ready) {
    notes.push({ code: 'verification_missing', message: 'no check has run against this composition yet' });
  }

  for (const [component, bad] of Object.entries(operation?.observations.bad_since ?? {})) {
    notes.push({
      code: 'fork_unhealthy',
      message: `fork of ${component} is in ${bad.reason} since ${bad.since}`,
    });
  }
  if (
    record.phase === Phase.Failed &&
    record.observed_generation > 0 &&
    record.latest_operation.kind === 'update'
  ) {
    notes.push({
      code: 'previous_generation_serving',
      message: `the rollout of generation ${record.generation} failed; generation ${record.observed_generation} keeps serving`,
    });
  }

  let cleanup: DiagnosisView['cleanup'] = { state: 'not_started', remaining: null };
  if (tearingDown) {
    try {
      const remaining = await deps.cluster.list(record.namespace, CompositionKinds, compositionSelector(id));
      const names = remaining.map((o) => `${o.kind}/${o.metadata.name}`).sort();
      const failedDestroy =
        record.active_operation === null && record.latest_operation.status === OperationStatus.Failed;
      cleanup = {
        state: names.length === 0 ? 'complete' : failedDestroy ? 'failed' : 'in_progress',
        remaining: names,
      };
    } catch {
      clusterReadable = false;
      cleanup = { state: 'unknown', remaining: null };
    }
  }
  if (!clusterReadable)
    notes.push({
      code: 'cluster_unreadable',
      message: 'the cluster could not be read; what it holds is unknown',
    });

  const state = ((): DiagnosisView['state'] => {
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
        if (cleanup.state === 'unknown') return DiagnosisState.Unknown;
        if (cleanup.state === 'failed') return DiagnosisState.CleanupFailed;
        return cleanup.state === 'complete' ? DiagnosisState.CleanedUp : DiagnosisState.CleaningUp;
      case Phase.Ready:
        if (!clusterReadable) return DiagnosisState.Unknown;
        if (verification.status === CheckStatus.Failed) return DiagnosisState.Degraded;
        if (verification.status === CheckStatus.Passed && verification.freshness === Freshness.Fresh) {
          return DiagnosisState.Healthy;
        }
        return DiagnosisState.Unverified;
    }
  })();

  return {
    composition_id: id,
    phase,
    generation: record.generation,
    observed_generation: record.observed_generation,
    state,
    blockers: record.observed.blockers,
    notes,
    verification,
    cleanup,
    evidence_id: latest?.id ?? null,
  };
}

export const ObservabilityView = v.object({
  composition_id: v.string(),
  links: v.array(v.object({ name: v.string(), component: v.nullable(v.string()), url: v.string() })),
});
export type ObservabilityView = v.InferOutput<typeof ObservabilityView>;

/**
 * The baseline's link templates resolved for this composition. Placeholders: `{composition_id}`,
 * `{project}`, `{baseline}`, `{namespace}`, `{label_selector}`, `{from}`, `{to}` (ISO times of the
 * composition's life so far) and `{component}` (one link per component of the baseline).
 */
export async function observability(deps: InsightDeps, id: string): Promise<ObservabilityView> {
  const record = await requireRecord(deps, id);
  const catalog = await deps.catalog.readProject(record.project);
  const baseline = catalog?.baselines[record.baseline]?.spec;
  const now = deps.clock.now().toISOString();
  const end =
    [record.destroyed_at, record.expires_at, now].filter((t): t is string => t !== null).sort()[0] ?? now;
  const values: Record<string, string> = {
    composition_id: record.id,
    project: record.project,
    baseline: record.baseline,
    namespace: record.namespace,
    label_selector: compositionSelector(record.id),
    from: record.created_at,
    to: end,
  };
  const fill = (template: string, extra: Record<string, string>) =>
    template.replace(/\{([a-z_]+)\}/g, (whole, key: string) => {
      const value = extra[key] ?? values[key];
      return value === undefined ? whole : encodeURIComponent(value);
    });
  const links: ObservabilityView['links'] = [];
  for (const [name, template] of Object.entries(baseline?.observability ?? {}).sort()) {
    if (template.includes('{component}')) {
      for (const component of Object.keys(baseline?.components ?? {}).sort()) {
        links.push({ name, component, url: fill(template, { component }) });
      }
    } else {
      links.push({ name, component: null, url: fill(template, {}) });
    }
  }
  return { composition_id: id, links };
}
