/**
 * What the worker does in a baseline namespace (packages/worker/src/steps.ts and the composition
 * reads): server-side apply and delete of its anchors, forks and routes, a bounded watch on
 * Deployments, lists of what a composition left behind, and pod logs. The installation check asks
 * a SelfSubjectAccessReview for each; docs/installation.md shows the same list as an RBAC Role.
 */
import type { AccessRequest } from '../cluster/ports.ts';

interface Permission {
  group: string;
  resource: string;
  subresource?: string;
  verbs: readonly string[];
}

/** Server-side apply is a `patch`, and a `create` too when the object does not exist yet. */
const owned = ['get', 'list', 'create', 'patch', 'delete'] as const;

const workerPermissions: readonly Permission[] = [
  { group: '', resource: 'configmaps', verbs: owned },
  { group: '', resource: 'services', verbs: owned },
  { group: 'apps', resource: 'deployments', verbs: [...owned, 'watch'] },
  { group: 'apps', resource: 'replicasets', verbs: ['list'] },
  { group: '', resource: 'pods', verbs: ['list'] },
  { group: '', resource: 'pods', subresource: 'log', verbs: ['get'] },
  { group: 'gateway.networking.k8s.io', resource: 'httproutes', verbs: owned },
];

export function accessRequests(namespace: string): AccessRequest[] {
  return workerPermissions.flatMap((p) =>
    p.verbs.map((verb) => ({
      verb,
      group: p.group,
      resource: p.resource,
      namespace,
      ...(p.subresource ? { subresource: p.subresource } : {}),
    })),
  );
}

/** `delete deployments.apps`, `get pods/log`: how a permission reads in a message. */
export function describeAccess(request: AccessRequest): string {
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  return `${request.verb} ${request.group ? `${resource}.${request.group}` : resource}`;
}

/** The `rules:` of an RBAC Role granting exactly these permissions, as docs/installation.md shows it. */
export function rbacRules(): string {
  return workerPermissions
    .map((p) => {
      const resource = p.subresource ? `${p.resource}/${p.subresource}` : p.resource;
      return [
        `  - apiGroups: ["${p.group}"]`,
        `    resources: ["${resource}"]`,
        `    verbs: [${p.verbs.map((verb) => `"${verb}"`).join(', ')}]`,
      ].join('\n');
    })
    .join('\n');
}
