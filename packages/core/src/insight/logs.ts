/**
 * Bounded log snapshots of one component: the fork's pods for an override, the shared baseline's
 * (every fork excluded) for an inherited component. What could not be read is reported, never hidden.
 */
import * as v from 'valibot';
import type { Identity } from '../auth/identity.ts';
import { logSelector } from '../catalog/model.ts';
import type { ComponentProfile } from '../catalog/schema.ts';
import { Label, type Pod } from '../cluster/objects.ts';
import { forkSelector } from '../cluster/render.ts';
import type { CompositionRecord } from '../compositions/model.ts';
import { requireComposition } from '../compositions/reads.ts';
import { ErrorCode, outwardCause, ProblemError } from '../errors.ts';
import type { InsightDeps } from './ports.ts';

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
type Stream = LogSnapshot['streams'][number];

/** A bounded snapshot: `tail_lines` per pod, `max_bytes` in total, overrides filtered to the composition's fork. */
export async function componentLogs(
  deps: InsightDeps,
  caller: Identity,
  id: string,
  component: string,
  query: LogQuery,
): Promise<LogSnapshot> {
  const record = await requireComposition(deps, caller, id, 'composition:read');
  const profile = await profileIn(deps, record, component);
  const overridden = component in record.desired.images;
  const source = overridden ? 'override' : 'shared-baseline';
  const selector = overridden
    ? forkSelector(id, component)
    : [
        ...Object.entries(logSelector(profile)).map(([k, val]) => `${k}=${val}`),
        `!${Label.Composition}`,
      ].join(',');
  const base = { component, source, composition_filtered: overridden } as const;
  let pods: Pod[];
  try {
    pods = (await deps.cluster.listPods(record.namespace, selector)).sort((a, b) =>
      a.metadata.name < b.metadata.name ? -1 : 1,
    );
  } catch (error) {
    deps.log({
      level: 'warn',
      msg: 'log snapshot: the cluster could not be read',
      composition_id: id,
      component,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    const message = `the cluster could not be read: ${outwardCause(error)}`;
    return { message, ...base, streams: [], partial: true, truncated: false };
  }
  const read = await readLogs(deps, record.namespace, pods, profile.workload.container, query);
  const where =
    pods.length === 0
      ? `no pods of ${component} (${source}) found`
      : `${read.streams.length} pod${read.streams.length === 1 ? '' : 's'} of ${component} (${source})`;
  const message = [
    where,
    read.unread ? `${read.unread} pod log${read.unread === 1 ? '' : 's'} could not be read` : '',
    read.truncated ? 'cut at a limit' : '',
  ]
    .filter(Boolean)
    .join('; ');
  return { message, ...base, streams: read.streams, partial: read.unread > 0, truncated: read.truncated };
}

/** The component's profile, if the component runs in the composition's baseline; else 404. */
async function profileIn(
  deps: InsightDeps,
  record: CompositionRecord,
  component: string,
): Promise<ComponentProfile> {
  const catalog = await deps.catalog.readProject(record.project);
  const profile = catalog?.components[component]?.spec;
  const inBaseline = catalog?.baselines[record.baseline]?.spec.components[component] !== undefined;
  if (!profile || !inBaseline) {
    throw new ProblemError(
      ErrorCode.NotFound,
      `component "${component}" is not part of composition "${record.id}"`,
    );
  }
  return profile;
}

/** Pod by pod until the byte budget is spent; at most `logLimits.maxPods` pods. */
async function readLogs(
  deps: InsightDeps,
  namespace: string,
  pods: readonly Pod[],
  container: string,
  query: LogQuery,
): Promise<{ streams: Stream[]; unread: number; truncated: boolean }> {
  const streams: Stream[] = [];
  let truncated = pods.length > logLimits.maxPods;
  let budget = query.max_bytes;
  let unread = 0;
  for (const pod of pods.slice(0, logLimits.maxPods)) {
    if (budget <= 0) {
      truncated = true;
      break;
    }
    try {
      // One line more than asked tells whether the tail cut anything.
      const text = await deps.cluster.podLogs(namespace, pod.metadata.name, {
        container,
        tailLines: query.tail_lines + 1,
        sinceSeconds: query.since_seconds,
        limitBytes: budget,
        previous: query.previous,
      });
      const cut = cutLog(text, query.tail_lines, budget);
      budget -= cut.bytes;
      streams.push({ pod: pod.metadata.name, container, text: cut.text, truncated: cut.truncated });
      if (cut.truncated) truncated = true;
    } catch {
      unread++;
    }
  }
  return { streams, unread, truncated };
}

/**
 * A log read with one line more than `tailLines` and at most `budget` bytes: the last `tailLines`
 * lines, whether a limit cut it, and the bytes it spent of the budget.
 */
export function cutLog(
  text: string,
  tailLines: number,
  budget: number,
): { text: string; truncated: boolean; bytes: number } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const cutByTail = lines.length > tailLines;
  const kept = `${lines.slice(cutByTail ? 1 : 0).join('\n')}${lines.length && text.endsWith('\n') ? '\n' : ''}`;
  const bytes = Buffer.byteLength(text);
  const cutByBytes = bytes >= budget;
  return { text: kept, truncated: cutByTail || cutByBytes, bytes: Math.min(bytes, budget) };
}
