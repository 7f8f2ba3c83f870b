/** What the API server is and serves, and what the adapter's identity may do: the installation check's reads. */
import type { Cluster } from '@svc/core';
import { type ClusterContext, notFound } from './context.ts';

export async function serverVersion(context: ClusterContext) {
  const info = await context.call((c) => c.version.getCode());
  return { version: info.gitVersion, platform: info.platform };
}

export async function servedResources(context: ClusterContext, apiVersion: string): Promise<string[] | null> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  try {
    const list = await context.call((c) =>
      group ? c.custom.getAPIResources({ group, version: version ?? '' }) : c.core.getAPIResources(),
    );
    return list.resources.map((r) => r.name).filter((name) => !name.includes('/'));
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

export async function identity(context: ClusterContext): Promise<{ user: string; groups: string[] } | null> {
  try {
    const review = await context.call((c) => c.authentication.createSelfSubjectReview({ body: {} }));
    const info = review.status?.userInfo;
    return { user: info?.username ?? '', groups: info?.groups ?? [] };
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

type AccessRequest = Parameters<Cluster.ClusterPort['reviewAccess']>[0][number];

const resourceAttributes = (request: AccessRequest) => ({
  verb: request.verb,
  group: request.group,
  resource: request.resource,
  namespace: request.namespace,
  ...(request.subresource ? { subresource: request.subresource } : {}),
});

/**
 * One review per request: of the adapter's own identity, or, given groups, of those groups in the
 * request's namespace (a LocalSubjectAccessReview, which a Role in that namespace can grant).
 */
export function reviewAccess(
  context: ClusterContext,
  requests: readonly AccessRequest[],
  subject?: { groups: readonly string[] },
): ReturnType<Cluster.ClusterPort['reviewAccess']> {
  return Promise.all(
    requests.map(async (request) => {
      const review = await context.call((c) =>
        subject
          ? c.authorization.createNamespacedLocalSubjectAccessReview({
              namespace: request.namespace,
              body: {
                metadata: { namespace: request.namespace },
                spec: { groups: [...subject.groups], resourceAttributes: resourceAttributes(request) },
              },
            })
          : c.authorization.createSelfSubjectAccessReview({
              body: { spec: { resourceAttributes: resourceAttributes(request) } },
            }),
      );
      return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
    }),
  );
}
