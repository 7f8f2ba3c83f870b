/**
 * What each of the service's cluster identities does in a baseline namespace, and so the least
 * RBAC each needs (deploy/kubernetes/rbac.yaml binds exactly these):
 *
 * - the worker (packages/worker/src/steps): server-side apply and delete of its anchor ConfigMaps,
 *   fork Deployments and Services, the HTTPRoutes and a sleeping fork's ScaledObject and
 *   InterceptorRoute; reads of the anchor and of the forks before
 *   they are replaced; a bounded watch on Deployments; lists of what a composition left behind;
 * - the API (insight, logs, verification, the installation check): lists of those same kinds, the
 *   baseline's Deployments and Services by name, pod logs, and a LocalSubjectAccessReview per
 *   permission of the worker's (the permissions check). It writes nothing: a server-side dry run
 *   would need the write's own verbs (create and patch), so the check reads instead.
 */
import type { AccessRequest } from '../cluster/ports.ts';

/** The Kubernetes groups of the service's identities: EKS access entries put each function's role in its own. */
export const clusterGroups = {
  api: 'preview-composition-api',
  worker: 'preview-composition-worker',
} as const;

type Identity = keyof typeof clusterGroups;

interface Permission {
  group: string;
  resource: string;
  subresource?: string;
  verbs: readonly string[];
}

const gatewayGroup = 'gateway.networking.k8s.io';

/** Server-side apply is a `patch`, and a `create` too when the object does not exist yet. */
const applied = ['create', 'patch', 'delete'] as const;

const permissions: Record<Identity, readonly Permission[]> = {
  worker: [
    { group: '', resource: 'configmaps', verbs: ['get', 'list', ...applied] },
    { group: '', resource: 'services', verbs: ['get', 'list', ...applied] },
    { group: 'apps', resource: 'deployments', verbs: ['get', 'list', 'watch', ...applied] },
    { group: 'apps', resource: 'replicasets', verbs: ['list'] },
    { group: '', resource: 'pods', verbs: ['list'] },
    { group: gatewayGroup, resource: 'httproutes', verbs: ['list', ...applied] },
    // A sleeping composition's per-fork KEDA objects (docs/sleep.md).
    { group: 'keda.sh', resource: 'scaledobjects', verbs: ['list', ...applied] },
    { group: 'http.keda.sh', resource: 'interceptorroutes', verbs: ['list', ...applied] },
  ],
  api: [
    { group: '', resource: 'configmaps', verbs: ['list'] },
    { group: '', resource: 'services', verbs: ['get', 'list'] },
    { group: 'apps', resource: 'deployments', verbs: ['get', 'list'] },
    { group: 'apps', resource: 'replicasets', verbs: ['list'] },
    { group: '', resource: 'pods', verbs: ['list'] },
    { group: '', resource: 'pods', subresource: 'log', verbs: ['get'] },
    { group: gatewayGroup, resource: 'httproutes', verbs: ['list'] },
    { group: 'authorization.k8s.io', resource: 'localsubjectaccessreviews', verbs: ['create'] },
  ],
};

/** The worker's permissions in `namespace`, one review each (the permissions check). */
export function accessRequests(namespace: string): AccessRequest[] {
  return permissions.worker.flatMap((p) =>
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

/** The `rules:` of the ClusterRole granting an identity exactly its permissions in a namespace it is bound in. */
export function rbacRules(identity: Identity): string {
  return permissions[identity]
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
