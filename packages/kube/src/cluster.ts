/**
 * The Kubernetes adapter: @kubernetes/client-node behind core's ClusterPort. One context holds the
 * clients and the retrying `call`; each operation lives in `cluster/` with what it shares.
 */
import type { Cluster } from '@svc/core';
import { clusterContext, type KubeConfigSource } from './cluster/context.ts';
import { identity, reviewAccess, servedResources, serverVersion } from './cluster/discovery.ts';
import { applyObject, deleteObject, getObject, listObjects, mergePatchObject } from './cluster/objects.ts';
import { listDeployments, listPods, podLogs } from './cluster/reads.ts';
import { watchDeployments } from './cluster/watch.ts';
import { defaultRetry, type RetryPolicy } from './retry.ts';

export { fixedKubeConfig, type KubeConfigSource } from './cluster/context.ts';

export function kubeCluster(
  source: KubeConfigSource,
  options: { retry?: RetryPolicy } = {},
): Cluster.ClusterPort {
  const context = clusterContext(source, options.retry ?? defaultRetry);
  return {
    health: {
      name: 'cluster',
      async check() {
        // The probe reports what it sees now; retrying would only delay the report.
        await context.call((c) => c.version.getCode(), { attempts: 1, baseDelayMs: 0 });
      },
    },
    getDeployment: (namespace, name) =>
      getObject<Cluster.Deployment>(context, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name }),
    getService: (namespace, name) =>
      getObject<Cluster.Service>(context, { apiVersion: 'v1', kind: 'Service', namespace, name }),
    get: (ref) => getObject(context, ref),
    apply: (object) => applyObject(context, object),
    mergePatch: (ref, patch) => mergePatchObject(context, ref, patch),
    delete: (ref, propagation) => deleteObject(context, ref, propagation),
    async list(namespace, kinds, labelSelector) {
      const lists = await Promise.all(
        kinds.map((k) => listObjects(context, namespace, k.apiVersion, k.kind, labelSelector)),
      );
      return lists.flatMap((l) => l.items);
    },
    listPods: (namespace, labelSelector, options) => listPods(context, namespace, labelSelector, options),
    listDeployments: (namespace, labelSelector, options) =>
      listDeployments(context, namespace, labelSelector, options),
    listServices: async (namespace, labelSelector) =>
      (await listObjects<Cluster.Service>(context, namespace, 'v1', 'Service', labelSelector)).items,
    watchDeployments: (namespace, labelSelector, done, timeoutMs) =>
      watchDeployments(context, namespace, labelSelector, done, timeoutMs),
    serverVersion: () => serverVersion(context),
    servedResources: (apiVersion) => servedResources(context, apiVersion),
    identity: () => identity(context),
    reviewAccess: (requests, subject) => reviewAccess(context, requests, subject),
    podLogs: (namespace, pod, options) => podLogs(context, namespace, pod, options),
  };
}
