/**
 * The local cluster's side of `bench:scale`: the floor of a rollout (a bare Deployment created in
 * the baselines' namespace, to Available, through the cluster's own API with nothing of the
 * service's in between) and what the cluster holds (every object, and its bytes as JSON: what
 * etcd and an API server's watch cache would hold for the same previews).
 */

const namespace = 'staging';

/** Every kind the service or the cluster's controllers create for a preview, by its list path. */
const kinds = {
  configmaps: '/api/v1/configmaps',
  services: '/api/v1/services',
  endpoints: '/api/v1/endpoints',
  endpointslices: '/apis/discovery.k8s.io/v1/endpointslices',
  pods: '/api/v1/pods',
  events: '/api/v1/events',
  deployments: '/apis/apps/v1/deployments',
  replicasets: '/apis/apps/v1/replicasets',
  httproutes: '/apis/gateway.networking.k8s.io/v1/httproutes',
} as const;

export interface ClusterContents {
  objects: number;
  /** Bytes of every object as JSON, the way the API server answers it. */
  bytes: number;
  byKind: Record<string, number>;
}

export async function clusterContents(clusterUrl: string): Promise<ClusterContents> {
  const byKind: Record<string, number> = {};
  let objects = 0;
  let bytes = 0;
  for (const [kind, path] of Object.entries(kinds)) {
    const { items } = (await (await fetch(`${clusterUrl}${path}`)).json()) as { items: unknown[] };
    byKind[kind] = items.length;
    objects += items.length;
    bytes += items.reduce<number>((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0);
  }
  return { objects, bytes, byKind };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One Deployment, created → Available, in ms; deleted afterwards. */
async function bareRollout(clusterUrl: string, name: string): Promise<number> {
  const deployments = `${clusterUrl}/apis/apps/v1/namespaces/${namespace}/deployments`;
  const labels = { app: name };
  const started = performance.now();
  const created = await fetch(deployments, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'app', image: 'registry.example.com/demo/service-b:floor' }] },
        },
      },
    }),
  });
  if (created.status !== 201) throw new Error(`floor deployment ${name}: ${created.status}`);
  for (;;) {
    const current = (await (await fetch(`${deployments}/${name}`)).json()) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (current.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True')) break;
    await sleep(5);
  }
  const ms = performance.now() - started;
  await fetch(`${deployments}/${name}?propagationPolicy=Background`, { method: 'DELETE' });
  return ms;
}

/** `count` bare rollouts one after another, each minus the pod-ready delay. */
export async function bareRollouts(
  clusterUrl: string,
  count: number,
  podReadyDelayMs: number,
  tag: string,
): Promise<number[]> {
  const overheads: number[] = [];
  for (let i = 0; i < count; i++) {
    overheads.push((await bareRollout(clusterUrl, `scale-floor-${tag}-${i}`)) - podReadyDelayMs);
  }
  return overheads;
}
