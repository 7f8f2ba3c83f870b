/**
 * Verification checks. Each check stores the fingerprint of what it ran against; freshness is
 * derived at read time by recomputing the fingerprint, so a change to the baseline alone (an
 * inherited image, a Service, a route, a contract) makes earlier proof stale without a new
 * generation. An input that cannot be read makes the check `unknown` — never `fresh`.
 */

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
