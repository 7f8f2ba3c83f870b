/**
 * Idempotency-Key records (IETF draft "The Idempotency-Key HTTP Header Field"), in the style of
 * Powertools' idempotency utility: a conditional put takes the key (absent, or expired, or an
 * in-progress lock that timed out); the completion is written in the same transaction as the
 * resource it created, so a crash can never leave a created resource without its replayable answer.
 */

/** How long a completed answer is replayed. */
export const idempotencyRetentionSeconds = 24 * 3600;
/** How long an in-progress record blocks retries before another request may take it over. */
export const idempotencyLockSeconds = 30;

/** A request made safe to retry by its Idempotency-Key. */
export interface IdempotentRequest {
  /** The operation's id (`createComposition`): the same key on another operation is another request. */
  readonly operation: string;
  readonly key: string;
  /** The body as the caller sent it: the same key with another body is refused. */
  readonly payload: unknown;
}

export interface IdempotencyLock {
  /** Hash of scope and key: the record's identity, never the raw key. */
  readonly record: string;
  /** Proves this request still holds the lock when it completes. */
  readonly token: string;
}

type IdempotencyOutcome =
  | { outcome: 'acquired'; lock: IdempotencyLock }
  | { outcome: 'replay'; status: number; body: unknown }
  | { outcome: 'in_flight' }
  | { outcome: 'mismatch' };

export interface IdempotencyCompletion {
  lock: IdempotencyLock;
  response: { status: number; body: unknown };
}

export interface IdempotencyStore {
  acquire(input: {
    /** Whose key it is: keys of two callers never meet. */
    caller: string;
    key: string;
    request_hash: string;
    /** The hash an earlier release stored for the same request, accepted as this one's. */
    former_hash?: string;
    now: Date;
  }): Promise<IdempotencyOutcome>;
  /** Gives the key back after a request that created nothing, so a corrected retry can use it. */
  release(lock: IdempotencyLock): Promise<void>;
  /** Deletes records past retention, oldest first; returns how many. */
  sweep(now: Date, limit: number): Promise<number>;
}
