/**
 * Query parameters as valibot schemas over the strings a query carries, each typed on the way out
 * and described for the OpenAPI document (which converts the typed side). Every operation reads
 * its query through one of these, so a bad value answers the same 400 `invalid_query`, naming the
 * parameter, everywhere.
 */
import { Builds, defaultPageSize, isDnsLabel, maxPageSize, type PageRequest } from '@svc/core';
import * as v from 'valibot';

/** A whole number within bounds, written in digits only (no sign, no exponent, no fraction). */
export function integerParam(bounds: { min: number; max: number }, description: string) {
  const message = `must be an integer from ${bounds.min} to ${bounds.max}`;
  return v.pipe(
    v.string(message),
    v.regex(/^\d{1,10}$/, message),
    v.transform(Number),
    v.number(),
    v.integer(message),
    v.minValue(bounds.min, message),
    v.maxValue(bounds.max, message),
    v.description(description),
  );
}

/** `true` (or the bare name, `?previous`) and `false`. */
export function booleanParam(description: string) {
  return v.pipe(
    v.picklist(['true', 'false', ''], 'must be true or false'),
    v.transform((value) => value !== 'false'),
    v.boolean(),
    v.description(description),
  );
}

/** A project, component or baseline name: a lowercase DNS label. */
export function nameParam(description: string) {
  return v.pipe(
    v.string(),
    v.check((value) => isDnsLabel(value, 63), 'must be a lowercase DNS label'),
    v.description(description),
  );
}

/** A repository as `owner/name`. */
export function repositoryParam(description: string) {
  return v.pipe(
    v.string(),
    v.check((value) => v.is(Builds.PublishBuildBody.entries.repository, value), 'must be owner/name'),
    v.description(description),
  );
}

/** Any text; the operation itself judges it. */
export function textParam(description: string) {
  return v.pipe(v.string(), v.description(description));
}

const cursorShape = /^[A-Za-z0-9_-]{1,2048}$/;

/** `?project=`: only this project. */
export const projectFilter = v.optional(nameParam('Only this project.'));

/** `limit` (default 50, max 200) and `after` (an opaque cursor), as every list takes them. */
export const pageParams = {
  limit: v.optional(integerParam({ min: 1, max: maxPageSize }, 'Page size (default 50, max 200).')),
  after: v.optional(
    v.pipe(
      v.string(),
      // A check, not a regex: the document says only "a string", since a cursor is opaque.
      v.check((value) => cursorShape.test(value), 'must be a next_cursor value from a previous page'),
      v.description("The previous page's next_cursor."),
    ),
  ),
};

/** A page request from the parsed `limit` and `after`, with the default page size. */
export function pageOf(query: { limit?: number | undefined; after?: string | undefined }): PageRequest {
  return { limit: query.limit ?? defaultPageSize, after: query.after ?? null };
}
