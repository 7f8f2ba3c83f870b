/**
 * The typed reads: pods, Deployments and Services of a namespace by label. A cached read is served
 * from the API server's watch cache (resourceVersion "0") instead of a quorum read of etcd: what a
 * recheck every few seconds can live with, at a fraction of the cost.
 */
import type { Cluster } from '@svc/core';
import { statusOf } from '../failures.ts';
import { type ClusterContext, typedItems } from './context.ts';
import { listObjects } from './objects.ts';

export async function listPods(
  context: ClusterContext,
  namespace: string,
  labelSelector: string,
  options: { cached?: boolean } = {},
): Promise<Cluster.Pod[]> {
  if (!options.cached)
    return (await listObjects<Cluster.Pod>(context, namespace, 'v1', 'Pod', labelSelector)).items;
  const list = await context.call((c) =>
    c.core.listNamespacedPod({ namespace, labelSelector, resourceVersion: '0' }),
  );
  return typedItems<Cluster.Pod>('v1', 'Pod', list);
}

export async function listDeployments(
  context: ClusterContext,
  namespace: string,
  labelSelector: string,
  options: { cached?: boolean } = {},
): Promise<Cluster.Deployment[]> {
  if (!options.cached) {
    return (await listObjects<Cluster.Deployment>(context, namespace, 'apps/v1', 'Deployment', labelSelector))
      .items;
  }
  const list = await context.call((c) =>
    c.apps.listNamespacedDeployment({ namespace, labelSelector, resourceVersion: '0' }),
  );
  return typedItems<Cluster.Deployment>('apps/v1', 'Deployment', list);
}

export async function podLogs(
  context: ClusterContext,
  namespace: string,
  pod: string,
  options: Cluster.LogOptions,
): Promise<string> {
  try {
    return await context.call((c) =>
      c.core.readNamespacedPodLog({
        name: pod,
        namespace,
        container: options.container,
        tailLines: options.tailLines,
        limitBytes: options.limitBytes,
        previous: options.previous,
        timestamps: true,
        ...(options.sinceSeconds === null ? {} : { sinceSeconds: options.sinceSeconds }),
      }),
    );
  } catch (error) {
    // No previous instance (or no log yet) is an empty log, not a failure.
    if (statusOf(error) === 400 && options.previous) return '';
    throw error;
  }
}
