export {
  type IdempotencyCompletion,
  type IdempotencyStore,
  type IdempotentRequest,
  idempotencyLockSeconds,
  idempotencyRetentionSeconds,
} from './ports.ts';
