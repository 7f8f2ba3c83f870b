/** Input fragments several tools share, built from core's schemas and limits. */
import { Id, maxPageSize } from '@svc/core';
import * as v from 'valibot';

export const compositionId = v.pipe(Id, v.description('Composition id, e.g. c-k3x9q2m7a1zt.'));

export const pageInput = {
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(maxPageSize),
      v.description(`Page size, 1–${maxPageSize} (server default 50).`),
    ),
  ),
  after: v.optional(
    v.pipe(v.string(), v.minLength(1), v.maxLength(2048), v.description("The previous page's next_cursor.")),
  ),
};

export const confirmationInput = v.optional(
  v.pipe(
    v.string(),
    v.maxLength(200),
    v.description(
      'Leave out to see what would happen and get a confirmation; send that confirmation back, with the same arguments, to do it.',
    ),
  ),
);
