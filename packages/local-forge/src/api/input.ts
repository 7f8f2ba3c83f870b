// Request parameters and JSON bodies, refused with GitHub's own messages.

import type { Context } from 'hono';
import { GitHubError, invalidRequest, notFound } from '../errors.ts';

/** A positive id or number in the path; anything else names nothing, hence 404. */
export function integer(value: string | undefined): number {
  const n = Number(value);
  if (!value || !Number.isSafeInteger(n) || n <= 0) throw notFound();
  return n;
}

export function oneOf<const T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidRequest(
      `For 'properties/${field}', ${JSON.stringify(value)} is not one of ${JSON.stringify(allowed)}.`,
    );
  }
  return value as T;
}

export function optionalString(body: Record<string, unknown>, field: string): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string')
    throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(value)} is not a string.`);
  return value;
}

export function requiredString(body: Record<string, unknown>, field: string): string {
  const value = optionalString(body, field);
  if (typeof value !== 'string') throw invalidRequest(`"${field}" wasn't supplied.`);
  return value;
}

/** An absent body reads as `{}`, so a missing field is reported as missing rather than as bad JSON. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GitHubError(400, 'Problems parsing JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new GitHubError(400, 'Problems parsing JSON');
  }
  return parsed as Record<string, unknown>;
}
