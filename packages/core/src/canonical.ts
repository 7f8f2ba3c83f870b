import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function contentHash(value: unknown): string {
  return sha256(canonicalJson(value));
}
