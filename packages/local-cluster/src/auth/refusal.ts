// The 403 a real API server answers when the authorizer does not allow a request: a Forbidden
// Status naming the user, the verb and the resource (or path), with the resource's group and the
// object's name in `details` (upstream's responsewriters.Forbidden and apierrors.NewForbidden).

import { ApiError } from '../api/errors.ts';
import type { UserInfo } from './identity.ts';
import type { RequestAttributes } from './rules.ts';

function refusedAction(user: UserInfo, request: RequestAttributes): string {
  if (!request.resourceRequest) return `User "${user.name}" cannot ${request.verb} path "${request.path}"`;
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const where = request.namespace ? `in the namespace "${request.namespace}"` : 'at the cluster scope';
  return `User "${user.name}" cannot ${request.verb} resource "${resource}" in API group "${request.group}" ${where}`;
}

export function forbiddenRequest(user: UserInfo, request: RequestAttributes, reason: string): ApiError {
  const said = reason ? `${refusedAction(user, request)}: ${reason}` : refusedAction(user, request);
  if (!request.resourceRequest) return new ApiError(403, 'Forbidden', `forbidden: ${said}`, {});
  const qualified = request.group ? `${request.resource}.${request.group}` : request.resource;
  const subject = request.name ? `${qualified} "${request.name}"` : qualified;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${said}`, {
    ...(request.name ? { name: request.name } : {}),
    group: request.group,
    kind: request.resource,
  });
}
