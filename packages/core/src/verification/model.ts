/**
 * Verification checks. Each check stores the fingerprint of what it ran against; freshness is
 * derived at read time by recomputing the fingerprint, so a change to the baseline alone (an
 * inherited image, a Service, a route, a contract) makes earlier proof stale without a new
 * generation. An input that cannot be read makes the check `unknown` — never `fresh`.
 */
import * as v from 'valibot';
import { pageSchema } from '../paging.ts';

export const CheckStatus = { Passed: 'passed', Failed: 'failed', Unknown: 'unknown' } as const;
export type CheckStatus = (typeof CheckStatus)[keyof typeof CheckStatus];

export const Freshness = { Fresh: 'fresh', Stale: 'stale', Unknown: 'unknown' } as const;
export type Freshness = (typeof Freshness)[keyof typeof Freshness];

export const Coverage = {
  /** The component answered with the expected image. */
  Verified: 'verified',
  /** The component answered with another image. */
  Mismatch: 'mismatch',
  /** The request never reached the component. */
  NotReached: 'not_reached',
  /** The answer does not say which image served the component. */
  Unknown: 'unknown',
} as const;
export type Coverage = (typeof Coverage)[keyof typeof Coverage];

/** `test`: a result CI (or anyone allowed) recorded against a composition's generation. */
export const CheckKind = { Routing: 'routing', Frontend: 'frontend', Test: 'test' } as const;
export type CheckKind = (typeof CheckKind)[keyof typeof CheckKind];

export interface Fingerprint {
  /** Input name (`image:service-a`, `route:preview-c-1`, …) → digest of its current value. */
  inputs: Record<string, string>;
  hash: string;
}

export interface CheckRecord {
  id: string;
  composition_id: string;
  kind: CheckKind;
  generation: number;
  status: CheckStatus;
  message: string;
  ran_at: string;
  target: string | null;
  http_status: number | null;
  coverage: Record<string, Coverage>;
  fingerprint: Fingerprint;
  /** Frontend checks: the binding they were recorded for (routing checks have none). */
  frontend?: FrontendRef | null | undefined;
}

interface FrontendRef {
  name: string;
  revision: string;
  /** The binding's version the check was recorded against. */
  version: number;
}

export const CheckView = v.object({
  id: v.string(),
  composition_id: v.string(),
  kind: v.enum(CheckKind),
  generation: v.number(),
  status: v.enum(CheckStatus),
  message: v.string(),
  ran_at: v.string(),
  target: v.nullable(v.string()),
  http_status: v.nullable(v.number()),
  coverage: v.record(v.string(), v.enum(Coverage)),
  frontend: v.nullable(v.object({ name: v.string(), revision: v.string(), version: v.number() })),
  freshness: v.enum(Freshness),
  stale_reasons: v.array(v.string()),
});
export type CheckView = v.InferOutput<typeof CheckView>;
export const CheckList = pageSchema(CheckView);

/** Freshness of a check given the fingerprint recomputed now (null: inputs could not be read). */
export function freshness(
  check: CheckRecord,
  current: Fingerprint | null,
): { freshness: Freshness; stale_reasons: string[] } {
  if (current === null)
    return { freshness: Freshness.Unknown, stale_reasons: ['the cluster could not be read'] };
  if (current.hash === check.fingerprint.hash) return { freshness: Freshness.Fresh, stale_reasons: [] };
  const names = new Set([...Object.keys(check.fingerprint.inputs), ...Object.keys(current.inputs)]);
  const reasons = [...names]
    .filter((name) => check.fingerprint.inputs[name] !== current.inputs[name])
    .sort()
    .map((name) =>
      name in current.inputs
        ? name in check.fingerprint.inputs
          ? `${name} changed`
          : `${name} appeared`
        : `${name} disappeared`,
    );
  return { freshness: Freshness.Stale, stale_reasons: reasons };
}

/**
 * The check as answered. `staleBecause` are reasons known beyond the fingerprint (a frontend check
 * of another generation, a changed binding): they make the check stale whatever the fingerprint says.
 */
export function checkView(
  check: CheckRecord,
  current: Fingerprint | null,
  staleBecause: readonly string[] = [],
): CheckView {
  const { fingerprint: _, frontend, ...rest } = check;
  const derived = freshness(check, current);
  const verdict = staleBecause.length
    ? {
        freshness: Freshness.Stale,
        stale_reasons: [
          ...staleBecause,
          ...(derived.freshness === Freshness.Stale ? derived.stale_reasons : []),
        ],
      }
    : derived;
  return { ...rest, frontend: frontend ?? null, ...verdict };
}
