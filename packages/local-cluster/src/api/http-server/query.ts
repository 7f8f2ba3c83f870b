// Query parameters as a Kubernetes API server reads them.

import { badRequest } from '../errors.ts';

export function boolParam(q: URLSearchParams, key: string): boolean {
  const v = q.get(key);
  return v === 'true' || v === '1';
}

export function intParam(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw badRequest(`${key}: invalid value "${v}"`);
  return n;
}
