// The authorization.k8s.io reviews, answered by the same authorizer every request goes through and
// never stored: SelfSubjectAccessReview (may I?), SubjectAccessReview and LocalSubjectAccessReview
// (may this user or these groups?, the latter in the namespace of its path), and
// SelfSubjectRulesReview (what may I do in this namespace?); and authentication.k8s.io's
// SelfSubjectReview (who am I?). A `deny` fault overrides an allowed
// resource review, as an explicit deny of another authorizer would.

import type { UserInfo } from '../../auth/identity.ts';
import type { PolicyRule, RequestAttributes } from '../../auth/rules.ts';
import { ApiError, badRequest } from '../errors.ts';
import { isObject } from '../json.ts';
import { readObject } from './bodies.ts';
import type { ResourceCall } from './context.ts';
import { sendJson } from './responses.ts';

type Spec = Record<string, unknown>;

const invalid = (kind: string, field: string, message: string) =>
  new ApiError(422, 'Invalid', `${kind}.authorization.k8s.io "" is invalid: ${field}: ${message}`);

const text = (object: unknown, key: string) =>
  isObject(object) && typeof object[key] === 'string' ? (object[key] as string) : '';

/** The request a review asks about; refused unless exactly one kind of attributes is given. */
function reviewedRequest(kind: string, spec: Spec): RequestAttributes {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (isObject(resource) === isObject(nonResource)) {
    throw invalid(
      kind,
      'spec.resourceAttributes',
      'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  }
  if (isObject(nonResource)) {
    return { resourceRequest: false, verb: text(nonResource, 'verb'), path: text(nonResource, 'path') };
  }
  return {
    resourceRequest: true,
    verb: text(resource, 'verb'),
    group: text(resource, 'group'),
    resource: text(resource, 'resource'),
    subresource: text(resource, 'subresource'),
    namespace: text(resource, 'namespace'),
    name: text(resource, 'name'),
  };
}

/** The user a SubjectAccessReview names: its `user` and `groups`, nothing added. */
function namedSubject(kind: string, spec: Spec): UserInfo {
  const groups = Array.isArray(spec.groups) ? spec.groups.filter((g) => typeof g === 'string') : [];
  const name = text(spec, 'user');
  if (!name && groups.length === 0) {
    throw invalid(kind, 'spec.user', 'Invalid value: "": at least one of user or group must be specified');
  }
  return { name, groups };
}

function accessStatus(call: ResourceCall, user: UserInfo, request: RequestAttributes) {
  const denial =
    request.resourceRequest &&
    call.deps.faultDenial?.({
      verb: request.verb,
      group: request.group,
      resource: request.resource,
      subresource: request.subresource,
      namespace: request.namespace,
      name: request.name,
    });
  if (denial) return { allowed: false, denied: true, reason: denial.reason };
  const decision = call.deps.authorize(user, request);
  return { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
}

/** Rules as a SelfSubjectRulesReview lists them: resource rules and non-resource rules apart. */
function rulesStatus(rules: readonly PolicyRule[]) {
  const resourceRules = rules
    .filter((r) => (r.resources ?? []).length > 0)
    .map((r) => ({
      verbs: r.verbs ?? [],
      apiGroups: r.apiGroups ?? [],
      resources: r.resources ?? [],
      ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
    }));
  const nonResourceRules = rules
    .filter((r) => (r.nonResourceURLs ?? []).length > 0)
    .map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] }));
  return { resourceRules, nonResourceRules, incomplete: false };
}

function reviewStatus(call: ResourceCall, kind: string, spec: Spec) {
  if (kind === 'SelfSubjectRulesReview') {
    const namespace = text(spec, 'namespace');
    if (!namespace) throw badRequest('no namespace on request');
    return rulesStatus(call.deps.rulesFor(call.user, namespace));
  }
  const request = reviewedRequest(kind, spec);
  if (kind === 'SelfSubjectAccessReview') return accessStatus(call, call.user, request);
  if (kind === 'LocalSubjectAccessReview') {
    if (!request.resourceRequest) {
      throw invalid(kind, 'spec.nonResourceAttributes', 'Forbidden: disallowed on this kind of request');
    }
    if (request.namespace !== call.namespace) {
      throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${call.namespace ?? ''}`);
    }
  }
  return accessStatus(call, namedSubject(kind, spec), request);
}

export async function serveAccessReview(call: ResourceCall): Promise<void> {
  const body = await readObject(call.req);
  const spec = isObject(body) && isObject(body.spec) ? body.spec : {};
  const { kind } = call.rt;
  const status = reviewStatus(call, kind, spec);
  return sendJson(call.res, 201, {
    kind,
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { ...(call.namespace ? { namespace: call.namespace } : {}), creationTimestamp: null },
    spec,
    status,
  });
}

/** SelfSubjectReview (authentication.k8s.io): who the caller is authenticated as. */
export async function serveSelfSubjectReview(call: ResourceCall): Promise<void> {
  await readObject(call.req);
  return sendJson(call.res, 201, {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    status: { userInfo: { username: call.user.name, groups: call.user.groups } },
  });
}
