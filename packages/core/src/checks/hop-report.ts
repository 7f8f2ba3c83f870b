/**
 * The hop report: what a workload answers through the preview gateway — the component and image
 * that served the request, and the answers of the services it called in turn. Local workloads
 * (packages/local-cluster) answer with it; the routing check reads from it which image served each
 * hop. `component`, `image` and each call's `body` are the contract; the rest is what local
 * workloads add for people reading the answer.
 */
import * as v from 'valibot';

const HopCall = v.object({
  service: v.optional(v.string()),
  status: v.optional(v.number()),
  /** The called service's answer: a hop report when a workload answered. */
  body: v.optional(v.unknown()),
});

export const HopReport = v.object({
  /** Null when the workload does not know which component it is. */
  component: v.nullable(v.string()),
  image: v.nullable(v.string()),
  pod: v.optional(v.nullable(v.string())),
  namespace: v.optional(v.string()),
  /** The routing key the request carried, if any. */
  routing_key: v.optional(v.nullable(v.string())),
  calls: v.optional(v.array(HopCall), []),
});
export type HopReport = v.InferInput<typeof HopReport>;

/** One level of the report: the answers of calls are read level by level, never by one deep parse. */
const HopReportLevel = v.object({
  ...HopReport.entries,
  calls: v.optional(v.array(v.object({ body: v.optional(v.unknown()) })), []),
});

/** One workload a request went through. */
export interface Hop {
  component: string;
  image: string;
  pod: string | null;
  routing_key: string | null;
}

/**
 * A preview's answer is untrusted evidence: a workload (or anything posing as one) decides its
 * shape. Reading it stops at these bounds, and what lies beyond them adds no hop.
 */
export const hopLimits = { maxDepth: 32, maxHops: 256 } as const;

/**
 * Every hop of a report that names its component and image, depth first; a call whose answer is
 * not such a report adds none. Null when `body` itself is not one: it says nothing of what served.
 * Calls nested deeper than `hopLimits.maxDepth` and hops past `hopLimits.maxHops` are not read.
 */
export function hopsOf(body: unknown): Hop[] | null {
  if (reportOf(body) === null) return null;
  const hops: Hop[] = [];
  // Depth first without recursion: the next answer to read is on top.
  const pending: { body: unknown; depth: number }[] = [{ body, depth: 0 }];
  for (let next = pending.pop(); next && hops.length < hopLimits.maxHops; next = pending.pop()) {
    const report = reportOf(next.body);
    if (report === null) continue;
    hops.push(report.hop);
    if (next.depth + 1 >= hopLimits.maxDepth) continue;
    const calls = report.calls.slice(0, hopLimits.maxHops - hops.length);
    for (const call of calls.reverse()) pending.push({ body: call.body, depth: next.depth + 1 });
  }
  return hops;
}

interface ReadableReport {
  hop: Hop;
  calls: { body?: unknown }[];
}

/** One level of a report: its own hop and its calls, their answers not yet read. */
function reportOf(body: unknown): ReadableReport | null {
  const parsed = v.safeParse(HopReportLevel, body);
  if (!parsed.success) return null;
  const { component, image, pod, routing_key, calls } = parsed.output;
  if (component === null || image === null) return null;
  return { hop: { component, image, pod: pod ?? null, routing_key: routing_key ?? null }, calls };
}
