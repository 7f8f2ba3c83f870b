/**
 * Runs a creating request at most once per Idempotency-Key: a repeat with the same request replays
 * the stored answer; one still in flight, or the key reused for another request, is refused.
 */
import { contentHash } from '../canonical.ts';
import type { Clock } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import type { IdempotencyLock, IdempotencyStore, IdempotentRequest } from './ports.ts';

export interface Answer<T> {
  status: number;
  body: T;
  /** True when an Idempotency-Key replayed an earlier answer. */
  replayed: boolean;
}

/**
 * Records written before requests were scoped by their operation hashed its route instead. Such a
 * record still replays until it expires, 24 hours after the release that changed the scope
 * (docs/decisions.md, "Idempotency-Key"); this table can go with the release after.
 */
const formerRoutes: Readonly<Record<string, { method: string; path: string }>> = {
  createComposition: { method: 'POST', path: '/v1/compositions' },
};

function hashes({ operation, payload }: IdempotentRequest): { request_hash: string; former_hash?: string } {
  const route = formerRoutes[operation];
  return {
    request_hash: contentHash({ operation, body: payload }),
    ...(route ? { former_hash: contentHash({ ...route, body: payload }) } : {}),
  };
}

/**
 * `run` gets the key's lock (null without a key) and stores its answer with the lock in its own
 * write, all or nothing. When `run` fails, the key is released so a corrected retry can use it.
 */
export async function idempotent<T>(
  deps: { idempotency: IdempotencyStore; clock: Clock },
  caller: string,
  request: IdempotentRequest | null,
  run: (lock: IdempotencyLock | null) => Promise<{ status: number; body: T }>,
): Promise<Answer<T>> {
  let lock: IdempotencyLock | null = null;
  if (request !== null) {
    const outcome = await deps.idempotency.acquire({
      caller,
      key: request.key,
      ...hashes(request),
      now: deps.clock.now(),
    });
    if (outcome.outcome === 'replay') {
      // The answer stored with the lock is the one `run` gave for this same request.
      return { status: outcome.status, body: outcome.body as T, replayed: true };
    }
    if (outcome.outcome === 'in_flight') {
      throw new ProblemError(
        ErrorCode.IdempotencyInFlight,
        'A request with this Idempotency-Key is still being processed; retry shortly.',
      );
    }
    if (outcome.outcome === 'mismatch') {
      throw new ProblemError(
        ErrorCode.IdempotencyKeyReused,
        'This Idempotency-Key was already used with a different request body.',
        { errors: [{ path: 'Idempotency-Key', message: 'reused with a different body' }] },
      );
    }
    lock = outcome.lock;
  }
  try {
    return { ...(await run(lock)), replayed: false };
  } catch (error) {
    if (lock) await deps.idempotency.release(lock).catch(() => {});
    throw error;
  }
}
