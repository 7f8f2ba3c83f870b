import * as v from 'valibot';
import { type FieldError, validationFailed } from './errors.ts';

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
