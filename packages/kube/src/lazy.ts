/**
 * The cluster adapter for a process that needs the cluster on a few routes only (the API): the
 * settings are checked at start, but @kubernetes/client-node (two thirds of the API's bundle)
 * is imported on the first call, so a cold start that serves other routes never loads it. The
 * Lambda build splits the import into a chunk of its own (infra/settings.ts `bundling`).
 */
import type { Cluster } from '@svc/core';
import type { ClusterSettings } from './settings.ts';

export function lazyCluster(settings: ClusterSettings): Cluster.ClusterPort {
  let loading: Promise<Cluster.ClusterPort> | undefined;
  const cluster = () => {
    loading ??= import('./from-settings.ts').then((module) => module.clusterFromSettings(settings));
    return loading;
  };
  return {
    health: { name: 'cluster', check: async (signal) => (await cluster()).health.check(signal) },
    getDeployment: async (namespace, name) => (await cluster()).getDeployment(namespace, name),
    getService: async (namespace, name) => (await cluster()).getService(namespace, name),
    get: async (ref) => (await cluster()).get(ref),
    apply: async (object) => (await cluster()).apply(object),
    mergePatch: async (ref, patch) => (await cluster()).mergePatch(ref, patch),
    delete: async (ref, propagation) => (await cluster()).delete(ref, propagation),
    list: async (namespace, kinds, labelSelector) => (await cluster()).list(namespace, kinds, labelSelector),
    listPods: async (namespace, labelSelector, options) =>
      (await cluster()).listPods(namespace, labelSelector, options),
    listDeployments: async (namespace, labelSelector, options) =>
      (await cluster()).listDeployments(namespace, labelSelector, options),
    listServices: async (namespace, labelSelector) =>
      (await cluster()).listServices(namespace, labelSelector),
    watchDeployments: async (namespace, labelSelector, done, timeoutMs) =>
      (await cluster()).watchDeployments(namespace, labelSelector, done, timeoutMs),
    podLogs: async (namespace, pod, options) => (await cluster()).podLogs(namespace, pod, options),
    serverVersion: async () => (await cluster()).serverVersion(),
    servedResources: async (apiVersion) => (await cluster()).servedResources(apiVersion),
    identity: async () => (await cluster()).identity(),
    reviewAccess: async (requests, subject) => (await cluster()).reviewAccess(requests, subject),
  };
}
