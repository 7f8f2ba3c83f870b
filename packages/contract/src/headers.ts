/** Request headers operations read, each declared once with its rule and the 400 a bad value answers. */
import { ErrorCode } from '@svc/core';
import * as v from 'valibot';

const printableKey = 'must be 1–128 printable ASCII characters';

/** Makes a create safe to retry (IETF draft "The Idempotency-Key HTTP Header Field"). */
export const idempotencyKey = {
  description: 'Makes the create safe to retry: same key and body replay the first answer for 24 h.',
  schema: v.pipe(
    v.string(),
    v.minLength(1, printableKey),
    v.maxLength(128, printableKey),
    v.regex(/^[\x20-\x7e]+$/, printableKey),
  ),
  invalid: ErrorCode.InvalidIdempotencyKey,
} as const;
