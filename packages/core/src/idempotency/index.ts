export {
  type IdempotencyCompletion,
  type IdempotencyStore,
  idempotencyLockSeconds,
  idempotencyRetentionSeconds,
  isValidKey,
  maxIdempotencyKeyLength,
} from './ports.ts';
