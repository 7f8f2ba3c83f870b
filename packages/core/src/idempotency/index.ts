export {
  type IdempotencyCompletion,
  type IdempotencyStore,
  idempotencyLockSeconds,
  idempotencyRetentionSeconds,
} from './ports.ts';
