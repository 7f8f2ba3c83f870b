/**
 * The problems an operation may answer. Most follow from what kind of operation it is (it takes a
 * credential, a body, a path segment, a query, a header, it changes something) and are derived here;
 * a declaration lists in `errors` only the ones its own use case adds.
 */
import { ErrorCode } from '@svc/core';
import { isOpen, type OpenOperation, type Operation, pathParamNames } from './operation.ts';

/** What any operation under /v1 may answer: no credential, no permission, a bug, a dependency down. */
const authenticated: readonly ErrorCode[] = [
  ErrorCode.Unauthenticated,
  ErrorCode.Forbidden,
  ErrorCode.Internal,
  ErrorCode.DependencyUnavailable,
];

/** A POST, PUT or PATCH says its body is JSON and keeps it small, body or not (the API's middleware). */
const changesWithBody = new Set(['post', 'put', 'patch']);

function derivedOfOpen(operation: OpenOperation): ErrorCode[] {
  return [
    ...(operation.signInOnly ? [ErrorCode.NotFound] : []),
    ...(operation.form && !operation.formOptional ? [ErrorCode.UnsupportedMediaType] : []),
  ];
}

/** The problems `operation` may answer by its kind alone, whatever its use case does. */
export function derivedProblems(operation: Operation): ErrorCode[] {
  if (isOpen(operation)) return derivedOfOpen(operation);
  return [
    ...authenticated,
    ...(changesWithBody.has(operation.method)
      ? [ErrorCode.PayloadTooLarge, ErrorCode.UnsupportedMediaType]
      : []),
    // Before the route sees it: malformed JSON; a reserved key or a schema it breaks is a 422.
    ...(operation.body ? [ErrorCode.MalformedJson, ErrorCode.ValidationFailed] : []),
    ...(pathParamNames(operation.path).length ? [ErrorCode.NotFound] : []),
    ...(operation.query ? [ErrorCode.InvalidQuery] : []),
    // Every change is counted per identity (docs/auth.md, "Limits"), whatever the route.
    ...(operation.method === 'get' ? [] : [ErrorCode.RateLimited]),
    ...Object.values(operation.headers ?? {}).map((header) => header.invalid),
  ];
}

/** Every problem `operation` may answer: its kind's, then its own. */
export function problemsOf(operation: Operation): ErrorCode[] {
  return [...new Set([...derivedProblems(operation), ...(operation.errors ?? [])])];
}
