// SelfSubjectAccessReview: nothing is stored; the review comes back with its `status` filled in,
// as from a real server.

import { ApiError } from '../errors.ts';
import { isObject } from '../json.ts';
import { readObject } from './bodies.ts';
import type { AccessDecision, ResourceCall } from './context.ts';
import { sendJson } from './responses.ts';

const allowEverything: AccessDecision = {
  allowed: true,
  denied: false,
  reason: 'this local cluster has no authorizer: every request is allowed',
};

export async function serveAccessReview({ deps, req, res }: ResourceCall): Promise<void> {
  const body = await readObject(req);
  const spec = isObject(body) && isObject(body.spec) ? body.spec : {};
  const attributes = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  if (!attributes && !isObject(spec.nonResourceAttributes)) {
    throw new ApiError(
      422,
      'Invalid',
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  }
  const text = (key: string) =>
    attributes && typeof attributes[key] === 'string' ? (attributes[key] as string) : '';
  const decision = attributes
    ? (deps.authorize?.({
        verb: text('verb'),
        group: text('group'),
        resource: text('resource'),
        subresource: text('subresource'),
        namespace: text('namespace'),
        name: text('name'),
      }) ?? allowEverything)
    : allowEverything;
  return sendJson(res, 201, {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: {
      allowed: decision.allowed,
      ...(decision.denied ? { denied: true } : {}),
      reason: decision.reason,
    },
  });
}
