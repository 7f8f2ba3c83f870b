import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, ErrorCode, encodeCursor, ProblemError } from '@svc/core';

/** The table every store writes to: its name and the document client, passed in, never global. */
export interface Table {
  name: string;
  documents: DynamoDBDocumentClient;
}

export type Item = Record<string, unknown>;

const keyAttributes = [
  'pk',
  'sk',
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'duepk',
  'duesk',
  'ttl',
  'item_type',
];

/** The stored record without key, index and bookkeeping attributes. */
export function stripKeys<T>(item: Item): T {
  const record: Item = { ...item };
  for (const key of keyAttributes) delete record[key];
  return record as T;
}

export function epochSeconds(iso: string | Date): number {
  return Math.floor((typeof iso === 'string' ? Date.parse(iso) : iso.getTime()) / 1000);
}

/** The cursor of a page: the index keys of its last item, opaque to clients. */
export function cursorFrom(item: Item, keys: readonly string[]): string {
  return encodeCursor(Object.fromEntries(keys.map((key) => [key, item[key]])));
}

/** Decodes a cursor back to an ExclusiveStartKey, refusing anything this list could not have produced. */
export function startKeyFrom(cursor: string | null, keys: readonly string[]): Item | undefined {
  if (cursor === null) return undefined;
  const value = decodeCursor(cursor);
  const valid =
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === keys.length &&
    keys.every((key) => typeof (value as Item)[key] === 'string');
  if (!valid) {
    throw new ProblemError(ErrorCode.InvalidQuery, 'after is not a cursor this list returned.', {
      errors: [{ path: 'after', message: 'unknown cursor' }],
    });
  }
  return value as Item;
}

/** Which items of a cancelled transaction failed their condition. */
export function failedConditions(error: unknown): boolean[] | null {
  if (!(error instanceof TransactionCanceledException)) return null;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code === 'ConditionalCheckFailed');
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
