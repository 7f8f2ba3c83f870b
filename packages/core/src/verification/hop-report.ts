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

/** One workload a request went through. */
export interface Hop {
  component: string;
  image: string;
  pod: string | null;
  routing_key: string | null;
}

/**
 * Every hop of a report that names its component and image, depth first; a call whose answer is
 * not such a report adds none. Null when `body` itself is not one: it says nothing of what served.
 */
export function hopsOf(body: unknown): Hop[] | null {
  const parsed = v.safeParse(HopReport, body);
  if (!parsed.success) return null;
  const { component, image, pod, routing_key, calls } = parsed.output;
  if (component === null || image === null) return null;
  const own: Hop = { component, image, pod: pod ?? null, routing_key: routing_key ?? null };
  return [own, ...calls.flatMap((call) => hopsOf(call.body) ?? [])];
}
