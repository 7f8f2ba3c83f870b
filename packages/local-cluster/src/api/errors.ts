// API errors carry the Kubernetes `Status` they answer with, so every failure reaches clients with
// the `reason` and `code` their libraries branch on.

import { qualifiedResource, type ResourceType } from './registry.ts';
import type { Status, StatusDetails } from './types.ts';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): Status {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

function details(rt: ResourceType, name: string | undefined): StatusDetails {
  return { ...(name !== undefined ? { name } : {}), group: rt.group, kind: rt.resource };
}

export function notFound(rt: ResourceType, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(rt)} "${name}" not found`, details(rt, name));
}

export function alreadyExists(rt: ResourceType, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(rt)} "${name}" already exists`,
    details(rt, name),
  );
}

export function conflict(rt: ResourceType, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(rt)} "${name}": ${why}`,
    details(rt, name),
  );
}

export const STALE_OBJECT =
  'the object has been modified; please apply your changes to the latest version and try again';

export interface FieldCause {
  field: string;
  message: string;
  reason?: string;
}

export function invalid(rt: ResourceType, name: string, causes: FieldCause[]): ApiError {
  const group = rt.group === '' ? '' : `.${rt.group}`;
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const message = `${rt.kind}${group} "${name}" is invalid: ${causes.length > 1 ? `[${text}]` : text}`;
  return new ApiError(422, 'Invalid', message, {
    name,
    group: rt.group,
    kind: rt.kind,
    causes: causes.map((c) => ({
      reason: c.reason ?? 'FieldValueInvalid',
      message: c.message,
      field: c.field,
    })),
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function forbidden(message: string, rt?: ResourceType, name?: string): ApiError {
  return new ApiError(403, 'Forbidden', message, rt ? details(rt, name) : undefined);
}

export function methodNotAllowed(
  message = 'the server does not allow this method on the requested resource',
): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function unsupportedMediaType(contentType: string): ApiError {
  const hint = contentType.includes('protobuf')
    ? ' (this local cluster reads protobuf only in bodies that create or replace an object; send patches, delete options and status as JSON)'
    : '';
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/vnd.kubernetes.protobuf, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml (got ${contentType})${hint}`,
  );
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

export function internal(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
}

export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

export function successStatus(rt: ResourceType, name: string, uid: string | undefined): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name, group: rt.group, kind: rt.resource, ...(uid ? { uid } : {}) },
    code: 200,
  };
}

/** A well-formed patch that cannot be applied to the object (missing path, failed test). */
export function invalidPatch(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}
