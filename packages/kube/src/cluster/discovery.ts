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

export function reviewAccess(
  context: ClusterContext,
  requests: Parameters<Cluster.ClusterPort['reviewAccess']>[0],
): ReturnType<Cluster.ClusterPort['reviewAccess']> {
  return Promise.all(
    requests.map(async (request) => {
      const review = await context.call((c) =>
        c.authorization.createSelfSubjectAccessReview({
          body: {
            spec: {
              resourceAttributes: {
                verb: request.verb,
                group: request.group,
                resource: request.resource,
                namespace: request.namespace,
                ...(request.subresource ? { subresource: request.subresource } : {}),
              },
            },
          },
        }),
      );
      return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
    }),
  );
}
