/** Bindings are kept until this long after their composition's expiry. */
export const bindingRetentionDays = 30;

/** How long one resolve request waits for readiness: well inside API Gateway's 30 s limit. */
export const maxResolveWaitSeconds = 20;

/** How often a waiting resolve re-reads the composition. */
export const resolvePollMs = 250;

/** A full commit SHA (SHA-1 or SHA-256), compared exactly. */
export const frontendRevisionPattern = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

export const ResolveOutcome = {
  /** The composition is ready: use `composition.url`. */
  Ready: 'ready',
  /** Still being created or updated; ask again. */
  Pending: 'pending',
  /** The rollout failed; the composition will not become ready on its own. */
  Failed: 'failed',
  /** Expired, being destroyed or gone: it will never be ready. */
  Ended: 'ended',
} as const;

export type ResolveOutcome = (typeof ResolveOutcome)[keyof typeof ResolveOutcome];
