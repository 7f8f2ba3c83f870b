import {
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  VersionApi,
  Watch,
} from '@kubernetes/client-node';
import { Cluster } from '@svc/core';
import { connectionPool } from './connections.ts';
import { classified, statusOf, statusText } from './failures.ts';
import { defaultRetry, type RetryPolicy, withRetry } from './retry.ts';

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
  version: VersionApi;
  watch: Watch;
}

/** client-node answers model instances with Date fields; the port speaks plain JSON. */
function plain<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A typed API's list as plain objects with their kind (list items carry none). */
function typedItems<T extends Cluster.ClusterObject>(
  apiVersion: string,
  kind: string,
  list: { items: unknown[] },
): T[] {
  return plain<T[]>(list.items).map((item) => ({ ...item, apiVersion, kind }));
}

const notFound = (error: unknown) => statusOf(error) === 404;

/** A 4xx the API server answered (not throttling): a refusal to report, not a failure to retry. */
function refusal(error: unknown): Extract<Cluster.DryRunResult, { accepted: false }> | null {
  const status = statusOf(error);
  if (status === undefined || status < 400 || status >= 500 || status === 429) return null;
  return {
    accepted: false,
    status,
    reason: statusText(error, 'reason'),
    message: statusText(error, 'message'),
  };
}

function resourcePath(apiVersion: string, plural: string, namespace: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}/namespaces/${namespace}/${plural}`;
}

/** The Kubernetes adapter: @kubernetes/client-node behind core's ClusterPort. */
export function kubeCluster(
  source: KubeConfigSource,
  options: { retry?: RetryPolicy } = {},
): Cluster.ClusterPort {
  const retry = options.retry ?? defaultRetry;
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
        version: routed.makeApiClient(VersionApi),
        watch: new Watch(routed),
      };
    }
    return clients;
  }

  /** Every Kubernetes API call goes through here: failures are classified, unavailability retried. */
  const call = <T>(fn: (c: Clients) => Promise<T>, policy = retry) =>
    withRetry(async () => {
      try {
        return await fn(await current());
      } catch (error) {
        throw classified(error);
      }
    }, policy);

  async function get<T extends Cluster.ClusterObject>(ref: Cluster.ObjectRef): Promise<T | null> {
    try {
      return plain<T>(
        await call((c) =>
          c.objects.read({
            apiVersion: ref.apiVersion,
            kind: ref.kind,
            metadata: { name: ref.name, namespace: ref.namespace },
          }),
        ),
      );
    } catch (error) {
      if (notFound(error)) return null;
      throw error;
    }
  }

  async function list<T extends Cluster.ClusterObject>(
    namespace: string,
    apiVersion: string,
    kind: string,
    labelSelector: string,
  ): Promise<{ items: T[]; resourceVersion: string | undefined }> {
    const result = await call((c) =>
      c.objects.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector),
    );
    const body = plain<{ items: T[]; metadata?: { resourceVersion?: string } }>(result);
    return {
      items: body.items.map((item) => ({ ...item, apiVersion, kind })),
      resourceVersion: body.metadata?.resourceVersion,
    };
  }

  return {
    health: {
      name: 'cluster',
      async check() {
        // The probe reports what it sees now; retrying would only delay the report.
        await call((c) => c.version.getCode(), { attempts: 1, baseDelayMs: 0 });
      },
    },

    getDeployment: (namespace, name) =>
      get<Cluster.Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name }),
    getService: (namespace, name) =>
      get<Cluster.Service>({ apiVersion: 'v1', kind: 'Service', namespace, name }),
    get: (ref) => get(ref),

    async apply(object) {
      const applied = await call((c) =>
        c.objects.patch(
          object as unknown as KubernetesObject,
          undefined,
          undefined,
          Cluster.fieldManager,
          true,
          PatchStrategy.ServerSideApply,
        ),
      );
      return plain<Cluster.ClusterObject>(applied);
    },

    async delete(ref, propagation = 'Background') {
      try {
        await call((c) =>
          c.objects.delete(
            {
              apiVersion: ref.apiVersion,
              kind: ref.kind,
              metadata: { name: ref.name, namespace: ref.namespace },
            },
            undefined,
            undefined,
            undefined,
            undefined,
            propagation,
          ),
        );
      } catch (error) {
        if (!notFound(error)) throw error;
      }
    },

    async list(namespace, kinds, labelSelector) {
      const lists = await Promise.all(kinds.map((k) => list(namespace, k.apiVersion, k.kind, labelSelector)));
      return lists.flatMap((l) => l.items);
    },

    // A cached read is served from the API server's watch cache (resourceVersion "0") instead of a
    // quorum read of etcd: what a recheck every few seconds can live with, at a fraction of the cost.
    listPods: async (namespace, labelSelector, options = {}) =>
      options.cached
        ? typedItems<Cluster.Pod>(
            'v1',
            'Pod',
            await call((c) => c.core.listNamespacedPod({ namespace, labelSelector, resourceVersion: '0' })),
          )
        : (await list<Cluster.Pod>(namespace, 'v1', 'Pod', labelSelector)).items,
    listDeployments: async (namespace, labelSelector, options = {}) =>
      options.cached
        ? typedItems<Cluster.Deployment>(
            'apps/v1',
            'Deployment',
            await call((c) =>
              c.apps.listNamespacedDeployment({ namespace, labelSelector, resourceVersion: '0' }),
            ),
          )
        : (await list<Cluster.Deployment>(namespace, 'apps/v1', 'Deployment', labelSelector)).items,
    listServices: async (namespace, labelSelector) =>
      (await list<Cluster.Service>(namespace, 'v1', 'Service', labelSelector)).items,

    async watchDeployments(namespace, labelSelector, done, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let latest: Cluster.Deployment[] = [];
      let watched = false;
      while (Date.now() < deadline) {
        // A watch without a resourceVersion starts with every matching object as an ADDED event,
        // so it needs no list before it; a new round starts over from those.
        const byName = new Map<string, Cluster.Deployment>();
        const finished = await new Promise<boolean>((resolve) => {
          let settled = false;
          const settle = (value: boolean) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            controller?.abort();
            resolve(value);
          };
          const timer = setTimeout(() => settle(false), Math.max(0, deadline - Date.now()));
          let controller: AbortController | undefined;
          current()
            .then((c) =>
              c.watch.watch(
                resourcePath('apps/v1', 'deployments', namespace),
                { labelSelector, allowWatchBookmarks: true },
                (type, object) => {
                  if (type === 'BOOKMARK') return;
                  const deployment = {
                    ...plain<Cluster.Deployment>(object),
                    apiVersion: 'apps/v1',
                    kind: 'Deployment',
                  };
                  if (type === 'DELETED') byName.delete(deployment.metadata.name);
                  else byName.set(deployment.metadata.name, deployment);
                  latest = [...byName.values()];
                  if (done(latest)) settle(true);
                },
                // A closed or failed watch ends this round; the loop watches again.
                () => settle(false),
              ),
            )
            .then((c) => {
              watched = true;
              controller = c;
              if (settled) c.abort();
            })
            .catch(() => setTimeout(() => settle(false), 50));
        });
        if (finished) return latest;
      }
      // A watch that got through sent every match: nothing more to see. If none did, a list says
      // what there is (or why the cluster cannot answer).
      return watched
        ? latest
        : (await list<Cluster.Deployment>(namespace, 'apps/v1', 'Deployment', labelSelector)).items;
    },

    async serverVersion() {
      const info = await call((c) => c.version.getCode());
      return { version: info.gitVersion, platform: info.platform };
    },
    async servedResources(apiVersion) {
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      try {
        const list = await call((c) =>
          group ? c.custom.getAPIResources({ group, version: version ?? '' }) : c.core.getAPIResources(),
        );
        return list.resources.map((r) => r.name).filter((name) => !name.includes('/'));
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async dryRunApply(object) {
      try {
        const applied = await call((c) =>
          c.objects.patch(
            object as unknown as KubernetesObject,
            undefined,
            'All',
            Cluster.fieldManager,
            true,
            PatchStrategy.ServerSideApply,
          ),
        );
        return { accepted: true, object: plain<Cluster.ClusterObject>(applied) };
      } catch (error) {
        const refused = refusal(error);
        if (refused) return refused;
        throw error;
      }
    },
    reviewAccess: (requests) =>
      Promise.all(
        requests.map(async (request) => {
          const review = await call((c) =>
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
      ),
    async podLogs(namespace, pod, options: Cluster.LogOptions) {
      try {
        return await call((c) =>
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
    },
  };
}
