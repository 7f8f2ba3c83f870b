/**
 * What every operation of the cluster adapter shares: the clients of the current kubeconfig (an EKS
 * token is refreshed by the source), one connection pool, and `call`, through which every
 * Kubernetes API call goes: failures classified, unavailability retried.
 */
import {
  AppsV1Api,
  AuthenticationV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  KubernetesObjectApi,
  VersionApi,
  Watch,
} from '@kubernetes/client-node';
import type { Cluster } from '@svc/core';
import { connectionPool } from '../connections.ts';
import { classified, statusOf } from '../failures.ts';
import { defaultRetry, type RetryPolicy, withRetry } from '../retry.ts';

/** Where the clients come from: a fixed kubeconfig locally, a refreshing EKS token on AWS. */
export interface KubeConfigSource {
  get(): Promise<KubeConfig>;
}

export function fixedKubeConfig(config: KubeConfig): KubeConfigSource {
  return { get: async () => config };
}

interface Clients {
  config: KubeConfig;
  objects: KubernetesObjectApi;
  apps: AppsV1Api;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  authorization: AuthorizationV1Api;
  authentication: AuthenticationV1Api;
  version: VersionApi;
  watch: Watch;
}

export interface ClusterContext {
  /** The clients of the current kubeconfig, made again when the source hands out another. */
  current(): Promise<Clients>;
  call<T>(fn: (c: Clients) => Promise<T>, policy?: RetryPolicy): Promise<T>;
}

export function clusterContext(source: KubeConfigSource, retry: RetryPolicy = defaultRetry): ClusterContext {
  const pooled = connectionPool();
  let clients: Clients | undefined;
  async function current(): Promise<Clients> {
    const config = await source.get();
    if (clients?.config !== config) {
      const routed = await pooled(config);
      clients = {
        config,
        objects: KubernetesObjectApi.makeApiClient(routed),
        apps: routed.makeApiClient(AppsV1Api),
        core: routed.makeApiClient(CoreV1Api),
        custom: routed.makeApiClient(CustomObjectsApi),
        authorization: routed.makeApiClient(AuthorizationV1Api),
        authentication: routed.makeApiClient(AuthenticationV1Api),
        version: routed.makeApiClient(VersionApi),
        watch: new Watch(routed),
      };
    }
    return clients;
  }
  return {
    current,
    call: (fn, policy = retry) =>
      withRetry(async () => {
        try {
          return await fn(await current());
        } catch (error) {
          throw classified(error);
        }
      }, policy),
  };
}

/** client-node answers model instances with Date fields; the port speaks plain JSON. */
export function plain<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A typed API's list as plain objects with their kind (list items carry none). */
export function typedItems<T extends Cluster.ClusterObject>(
  apiVersion: string,
  kind: string,
  list: { items: unknown[] },
): T[] {
  return plain<T[]>(list.items).map((item) => ({ ...item, apiVersion, kind }));
}

export const notFound = (error: unknown) => statusOf(error) === 404;

export function resourcePath(apiVersion: string, plural: string, namespace: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}/namespaces/${namespace}/${plural}`;
}
