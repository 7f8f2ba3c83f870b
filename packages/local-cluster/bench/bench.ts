// Benchmarks of the local cluster, printed as a table for the README:
//   npm run bench -w @svc/local-cluster
// The load generator runs in the same process as the cluster (as in tests), on the same cores.

import { Agent, request } from 'node:http';
import { gatewayFetch, type LocalCluster, startLocalCluster } from '../src/index.ts';

const POD_READY_DELAY_MS = 20;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers: {
          ...(data ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await fn(item);
      }
    }),
  );
}

function podManifest(i: number) {
  return {
    metadata: { name: `pod-${String(i).padStart(4, '0')}`, labels: { app: 'bench', shard: String(i % 10) } },
    spec: {
      containers: [{ name: 'app', image: 'registry.example/bench:1', ports: [{ containerPort: 8080 }] }],
    },
  };
}

async function listLatency(cluster: LocalCluster): Promise<Record<string, string>> {
  await call(cluster.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
  await pool(
    Array.from({ length: 1000 }, (_, i) => i),
    32,
    async (i) => {
      const r = await call(cluster.url, 'POST', '/api/v1/namespaces/bench/pods', podManifest(i));
      if (r.status !== 201) throw new Error(`create pod: ${r.status} ${r.text}`);
    },
  );
  for (;;) {
    const r = JSON.parse(
      (await call(cluster.url, 'GET', '/api/v1/namespaces/bench/pods?fieldSelector=status.phase%3DRunning'))
        .text,
    ) as { items: unknown[] };
    if (r.items.length === 1000) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  const measure = async (
    path: string,
    runs: number,
  ): Promise<{ p50: number; p95: number; bytes: number }> => {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const r = await call(cluster.url, 'GET', path);
      times.push(performance.now() - started);
      bytes = r.text.length;
    }
    return { p50: percentile(times, 50), p95: percentile(times, 95), bytes };
  };
  const full = await measure('/api/v1/namespaces/bench/pods', 40);
  const page = await measure('/api/v1/namespaces/bench/pods?limit=500', 40);
  const selected = await measure('/api/v1/namespaces/bench/pods?labelSelector=shard%20in%20(1)', 40);
  const fmt = (m: { p50: number; p95: number; bytes: number }) =>
    `p50 ${m.p50.toFixed(1)} ms, p95 ${m.p95.toFixed(1)} ms (${(m.bytes / 1024 / 1024).toFixed(2)} MiB)`;
  return {
    'list 1,000 pods (full)': fmt(full),
    'list 1,000 pods (limit=500, first page)': fmt(page),
    'list 1,000 pods (labelSelector, 100 match)': fmt(selected),
  };
}

function deployment(name: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/d:1' }] },
      },
    },
  };
}

async function reconcile(cluster: LocalCluster): Promise<Record<string, string>> {
  await call(cluster.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'deploys' } });
  const created = new Map<string, number>();
  const available = new Map<string, number>();
  const list = JSON.parse(
    (await call(cluster.url, 'GET', '/apis/apps/v1/namespaces/deploys/deployments')).text,
  ) as { metadata: { resourceVersion: string } };
  const done = new Promise<void>((resolve, reject) => {
    const url = new URL(
      `/apis/apps/v1/namespaces/deploys/deployments?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      cluster.url,
    );
    const req = request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}` },
      (res) => {
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let nl = buffer.indexOf('\n');
          while (nl >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            nl = buffer.indexOf('\n');
            const event = JSON.parse(line) as {
              object: {
                metadata: { name: string };
                status?: { availableReplicas?: number; conditions?: { type: string; status: string }[] };
              };
            };
            const d = event.object;
            const ok =
              d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') &&
              d.status.availableReplicas === 1;
            if (ok && !available.has(d.metadata.name)) available.set(d.metadata.name, performance.now());
            if (available.size === 200) {
              req.destroy();
              resolve();
            }
          }
        });
      },
    );
    req.on('error', (e) => (available.size === 200 ? undefined : reject(e)));
    req.end();
  });
  const started = performance.now();
  await pool(
    Array.from({ length: 200 }, (_, i) => `d-${i}`),
    16,
    async (name) => {
      created.set(name, performance.now());
      const r = await call(
        cluster.url,
        'POST',
        '/apis/apps/v1/namespaces/deploys/deployments',
        deployment(name),
      );
      if (r.status !== 201) throw new Error(`create deployment: ${r.status} ${r.text}`);
    },
  );
  await done;
  const total = performance.now() - started;
  const overhead = [...available].map(([name, at]) => at - (created.get(name) ?? at) - POD_READY_DELAY_MS);
  return {
    '200 Deployments to Available (wall time, all created at once)': `${total.toFixed(0)} ms`,
    'per Deployment create→Available minus pod-ready delay': `p50 ${percentile(overhead, 50).toFixed(1)} ms, p95 ${percentile(overhead, 95).toFixed(1)} ms`,
  };
}

async function single(cluster: LocalCluster): Promise<Record<string, string>> {
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const name = `one-${i}`;
    const started = performance.now();
    await call(cluster.url, 'POST', '/apis/apps/v1/namespaces/deploys/deployments', deployment(name));
    for (;;) {
      const d = JSON.parse(
        (await call(cluster.url, 'GET', `/apis/apps/v1/namespaces/deploys/deployments/${name}`)).text,
      ) as { status?: { availableReplicas?: number } };
      if (d.status?.availableReplicas === 1) break;
      await new Promise((r) => setImmediate(r));
    }
    times.push(performance.now() - started - POD_READY_DELAY_MS);
  }
  return {
    'one Deployment at a time, create→Available minus pod-ready delay': `p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
  };
}

async function gateway(cluster: LocalCluster): Promise<Record<string, string>> {
  await call(cluster.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'chain' } });
  const services = [
    ['service-a', 'service-b'],
    ['service-b', 'service-c'],
    ['service-c', ''],
  ];
  for (const [name, deps] of services) {
    const d = deployment(name ?? '');
    (
      d.spec.template.metadata as { annotations?: Record<string, string>; labels: Record<string, string> }
    ).annotations = { 'preview.local/dependencies': deps ?? '' };
    (d.spec.template.metadata.labels as Record<string, string>)['app.kubernetes.io/name'] = name ?? '';
    await call(cluster.url, 'POST', '/apis/apps/v1/namespaces/chain/deployments', d);
    await call(cluster.url, 'POST', '/api/v1/namespaces/chain/services', {
      metadata: { name },
      spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
    });
  }
  await call(cluster.url, 'POST', '/apis/gateway.networking.k8s.io/v1/namespaces/chain/httproutes', {
    metadata: { name: 'chain' },
    spec: {
      parentRefs: [{ name: 'preview', namespace: 'svc-system' }],
      hostnames: ['chain.preview.localhost'],
      rules: [{ backendRefs: [{ name: 'service-a', port: 80 }] }],
    },
  });
  const url = 'http://chain.preview.localhost/';
  for (;;) {
    const r = await gatewayFetch(cluster.gatewayUrl, url);
    const body = (await r.json()) as { calls?: { body?: { calls?: { status: number }[] } }[] };
    if (r.status === 200 && body.calls?.[0]?.body?.calls?.[0]?.status === 200) break;
    await new Promise((res) => setTimeout(res, 20));
  }
  const gw = new URL(cluster.gatewayUrl);
  const durationMs = 5000;
  const deadline = performance.now() + durationMs;
  const latencies: number[] = [];
  let failures = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const status = await new Promise<number>((resolve, reject) => {
          const req = request(
            {
              agent,
              host: gw.hostname,
              port: gw.port,
              path: '/',
              headers: { host: 'chain.preview.localhost' },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          req.end();
        });
        if (status !== 200) failures++;
        latencies.push(performance.now() - started);
      }
    }),
  );
  return {
    'gateway, three-hop chain (32 concurrent clients, 5 s)': `${Math.round(latencies.length / (durationMs / 1000))} req/s, p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, ${failures} non-200`,
  };
}

/**
 * What authentication and RBAC cost a request: one pod read 2,000 times on a cluster without users,
 * and as a user whose access comes from a RoleBinding, among 50 other namespaces' bindings.
 */
async function authorization(open: LocalCluster): Promise<Record<string, string>> {
  const users = [
    { token: 'bench-admin', name: 'admin', groups: ['system:masters'] },
    { token: 'bench-worker', name: 'worker', groups: ['bench-workers'] },
  ];
  const guarded = await startLocalCluster({ podReadyDelayMs: POD_READY_DELAY_MS, users });
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const admin = (method: string, path: string, body: unknown) =>
    call(guarded.url, method, path, body, 'bench-admin');
  const rules = ['configmaps', 'services', 'pods', 'pods/log'].map((resource) => ({
    apiGroups: [''],
    resources: [resource],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  }));
  await admin('POST', `${rbac}/clusterroles`, { metadata: { name: 'bench' }, rules });
  for (let i = 0; i < 51; i++) {
    const namespace = i === 0 ? 'bench' : `other-${i}`;
    await admin('POST', '/api/v1/namespaces', { metadata: { name: namespace } });
    await admin('POST', `${rbac}/namespaces/${namespace}/rolebindings`, {
      metadata: { name: 'bench' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench' },
      subjects: [
        {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'Group',
          name: i === 0 ? 'bench-workers' : `team-${i}`,
        },
      ],
    });
  }
  for (const c of [open, guarded]) {
    const r = await call(c.url, 'POST', '/api/v1/namespaces/bench/pods', podManifest(0), 'bench-admin');
    if (r.status !== 201 && r.status !== 409) throw new Error(`create pod: ${r.status} ${r.text}`);
  }
  const measure = async (c: LocalCluster, token: string | undefined) => {
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const started = performance.now();
      const r = await call(c.url, 'GET', '/api/v1/namespaces/bench/pods/pod-0000', undefined, token);
      if (r.status !== 200) throw new Error(`get pod: ${r.status} ${r.text}`);
      times.push(performance.now() - started);
    }
    const settled = times.slice(100);
    return `p50 ${percentile(settled, 50).toFixed(3)} ms, p95 ${percentile(settled, 95).toFixed(3)} ms`;
  };
  try {
    return {
      'get one pod, cluster without users (2,000 in a row)': await measure(open, undefined),
      'get one pod, RBAC user allowed by a RoleBinding among 51 (2,000 in a row)': await measure(
        guarded,
        'bench-worker',
      ),
    };
  } finally {
    await guarded.stop();
  }
}

const cluster = await startLocalCluster({ podReadyDelayMs: POD_READY_DELAY_MS });
try {
  const results: Record<string, string> = {};
  Object.assign(results, await listLatency(cluster));
  Object.assign(results, await reconcile(cluster));
  Object.assign(results, await single(cluster));
  Object.assign(results, await gateway(cluster));
  Object.assign(results, await authorization(cluster));
  process.stdout.write(
    `local-cluster benchmark (Node ${process.version}, pod-ready delay ${POD_READY_DELAY_MS} ms)\n\n`,
  );
  process.stdout.write('| measure | result |\n|---|---|\n');
  for (const [k, v] of Object.entries(results)) process.stdout.write(`| ${k} | ${v} |\n`);
} finally {
  agent.destroy();
  await cluster.stop();
}
