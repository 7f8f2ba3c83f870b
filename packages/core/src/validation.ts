import * as v from 'valibot';
import { ErrorCode, type FieldError, ProblemError, validationFailed } from './errors.ts';

const pointer = (keys: readonly (string | number)[]) =>
  keys.length ? `/${keys.map((k) => String(k).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}` : '';

/** valibot issues as `{ path, message }` with JSON pointer paths (`/overrides/service-b/image`). */
function issuesToFieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return issues.map((issue) => {
    const keys = (issue.path ?? []).map((item) => String(item.key));
    return { path: pointer(keys), message: describeIssue(issue, keys) };
  });
}

function describeIssue(issue: v.BaseIssue<unknown>, keys: string[]): string {
  const field = keys.at(-1);
  if (issue.kind === 'schema' && issue.expected === 'never') return `unknown field "${field}"`;
  if (issue.kind === 'schema' && issue.input === undefined) return `${field ?? 'value'} is required`;
  return issue.message;
}

/** What every request body is held to before its schema sees it (docs/decisions.md, "Request bodies"). */
export const bodyLimits = {
  /** Larger bodies are refused (413) unread. */
  maxBytes: 256 * 1024,
  /** Arrays and objects nested deeper than this are refused (413) before any other processing. */
  maxDepth: 32,
} as const;

/**
 * Keys every body refuses: valibot drops them silently (prototype pollution guard), so a body
 * naming one would be accepted as if the entry were not there.
 */
const reservedKeys = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The body's nesting and reserved keys, walked without recursion so that no depth can exhaust the
 * stack: `tooDeep` when arrays or objects nest more than `maxDepth` levels, else every reserved key
 * by JSON pointer.
 */
export function bodyProblems(
  body: unknown,
  maxDepth: number = bodyLimits.maxDepth,
): { tooDeep: boolean; reserved: FieldError[] } {
  const reserved: FieldError[] = [];
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value: body, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= maxDepth) return { tooDeep: true, reserved: [] };
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [key] of entries) {
      if (typeof key === 'string' && reservedKeys.has(key)) {
        reserved.push({ path: pointer([...path, key]), message: `"${key}" is a reserved key` });
      }
    }
    // Reversed onto the stack, so the walk (and the list of problems) follows the document's order.
    for (const [key, item] of entries.reverse()) pending.push({ value: item, path: [...path, key] });
  }
  return { tooDeep: false, reserved };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const objectTypes = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest']);
const wrapperTypes = new Set(['optional', 'nullable', 'nullish', 'exact_optional', 'undefinedable']);

/** The parts of a valibot schema this walk reads; valibot exposes them on every schema. */
interface SchemaShape {
  type: string;
  wrapped?: SchemaShape;
  entries?: Record<string, SchemaShape>;
  rest?: SchemaShape;
  value?: SchemaShape;
  item?: SchemaShape;
  key?: string;
  options?: SchemaShape[];
}

/**
 * valibot's object and record schemas take an array for an object keyed by index (`[]` passes as
 * `{}`, `[{…}]` as `{ "0": {…} }`). Every place `schema` expects an object and `input` holds an
 * array is named here, so the parse can refuse it.
 */
function arraysForObjects(schema: SchemaShape, input: unknown, path: (string | number)[], out: FieldError[]) {
  if (wrapperTypes.has(schema.type)) {
    if (input !== undefined && input !== null && schema.wrapped)
      arraysForObjects(schema.wrapped, input, path, out);
    return;
  }
  const objectLike = objectTypes.has(schema.type) || schema.type === 'record';
  if (objectLike && Array.isArray(input)) {
    out.push({ path: pointer(path), message: 'must be an object, not an array' });
    return;
  }
  if (objectLike && isObject(input)) {
    for (const [key, item] of Object.entries(input)) {
      const entry = schema.type === 'record' ? schema.value : (schema.entries?.[key] ?? schema.rest);
      if (entry) arraysForObjects(entry, item, [...path, key], out);
    }
    return;
  }
  if (schema.type === 'array' && Array.isArray(input) && schema.item) {
    const item = schema.item;
    input.forEach((element, index) => {
      arraysForObjects(item, element, [...path, index], out);
    });
    return;
  }
  if (schema.type === 'variant' && isObject(input) && schema.key) {
    const tag = input[schema.key];
    const option = schema.options?.find((o) => {
      const literal = o.entries?.[schema.key as string] as { literal?: unknown } | undefined;
      return literal?.literal === tag;
    });
    if (option) arraysForObjects(option, input, path, out);
  }
}

/**
 * Parses `input` with `schema`, refusing arrays where the schema expects an object; answers the
 * output, or every problem as `{ path, message }`.
 */
export function parseFields<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): { success: true; output: v.InferOutput<TSchema> } | { success: false; errors: FieldError[] } {
  const arrays: FieldError[] = [];
  arraysForObjects(schema as unknown as SchemaShape, input, [], arrays);
  if (arrays.length) return { success: false, errors: arrays };
  const result = v.safeParse(schema, input);
  return result.success
    ? { success: true, output: result.output }
    : { success: false, errors: issuesToFieldErrors(result.issues) };
}

/** Parses or throws a 422 naming every offending field. */
export function parseOrThrow<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): v.InferOutput<TSchema> {
  const result = parseFields(schema, input);
  if (!result.success) throw validationFailed(result.errors);
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
