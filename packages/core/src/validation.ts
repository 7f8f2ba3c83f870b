import * as v from 'valibot';
import { ErrorCode, type FieldError, ProblemError, validationFailed } from './errors.ts';

/** valibot issues as `{ path, message }` with JSON pointer paths (`/overrides/service-b/image`). */
export function issuesToFieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return issues.map((issue) => {
    const keys = (issue.path ?? []).map((item) => String(item.key));
    const path = keys.length
      ? `/${keys.map((k) => k.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`
      : '';
    return { path, message: describeIssue(issue, keys) };
  });
}

function describeIssue(issue: v.BaseIssue<unknown>, keys: string[]): string {
  const field = keys.at(-1);
  if (issue.kind === 'schema' && issue.expected === 'never') return `unknown field "${field}"`;
  if (issue.kind === 'schema' && issue.input === undefined) return `${field ?? 'value'} is required`;
  return issue.message;
}

/** Parses or throws a 422 naming every offending field. */
export function parseOrThrow<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input);
  if (!result.success) throw validationFailed(issuesToFieldErrors(result.issues));
  return result.output;
}

/**
 * Parses query parameters or throws a 400 `invalid_query` naming each parameter (a missing
 * required one included), as every route answers bad query values.
 */
export function parseQueryOrThrow<TSchema extends v.GenericSchema>(
  schema: TSchema,
  query: Record<string, string | undefined>,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, query);
  if (result.success) return result.output;
  const errors = issuesToFieldErrors(result.issues).map((e) => ({
    path: e.path.replace(/^\//, ''),
    message: e.message,
  }));
  return throwInvalidQuery(errors);
}

function throwInvalidQuery(errors: FieldError[]): never {
  throw new ProblemError(ErrorCode.InvalidQuery, errors.map((e) => `${e.path}: ${e.message}`).join('; '), {
    errors,
  });
}
