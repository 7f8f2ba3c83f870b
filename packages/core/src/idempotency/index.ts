/** Only a port and the helper that answers a request once: no records of its own kind. */
export {
  type IdempotencyCompletion,
  type IdempotencyStore,
  type IdempotentRequest,
  idempotencyLockSeconds,
  idempotencyRetentionSeconds,
} from './ports.ts';
