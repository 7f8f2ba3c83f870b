/**
 * What the sleep benchmarks share: the demo catalog with `staging-sleepy`'s `after` set (and
 * `staging` never sleeping), previews created and waited for through the API, their forks' replicas
 * read from the local cluster, a request through a preview URL judged by who answered it.
 */
import { gatewayFetch } from '@svc/local-cluster';
import { demoManifest, image } from '../src/demo.ts';
import type { Stack } from '../src/stack.ts';

export const sleepyBaseline = 'staging-sleepy';
const namespace = 'staging';

/** Applies the demo catalog with `staging-sleepy` sleeping after `afterSeconds`. */
export async function applySleepAfter(stack: Stack, afterSeconds: number): Promise<void> {
  const manifest = demoManifest(stack.apiUrl);
  for (const baseline of manifest.projects[0]?.baselines ?? []) {
    if (baseline.name === sleepyBaseline) baseline.sleep = { after: `${afterSeconds}s` };
  }
  const response = await fetch(`${stack.apiUrl}/v1/catalog/apply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(manifest),
  });
  if (response.status !== 200)
    throw new Error(`catalog apply answered ${response.status}: ${await response.text()}`);
}

export interface Preview {
  id: string;
  url: string;
  /** The overridden components and the image each fork runs. */
  forks: Record<string, string>;
  /** Isolated queues, when created with message isolation. */
  queueUrls: string[];
}

async function api(stack: Stack, method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Creates a preview on `baseline` overriding `components` (each with a tag of its own) and waits until it is ready. */
export async function createPreview(
  stack: Stack,
  options: {
    name: string;
    baseline: string;
    components: string[];
    messageIsolation?: boolean;
    /** Told the id as soon as the create is accepted. */
    accepted?: (id: string) => void;
  },
): Promise<Preview> {
  const forks = Object.fromEntries(options.components.map((c) => [c, image(c, `${options.name}-2.0.0`)]));
  const { id } = (await api(stack, 'POST', '/v1/compositions', {
    project: 'demo',
    baseline: options.baseline,
    name: options.name,
    overrides: Object.fromEntries(Object.entries(forks).map(([c, i]) => [c, { image: i }])),
    ...(options.messageIsolation ? { message_isolation: true } : {}),
  })) as { id: string };
  options.accepted?.(id);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const record = await api(stack, 'GET', `/v1/compositions/${id}`);
    if (record.phase === 'ready') {
      const endpoints = record.endpoints as { public: { url: string } };
      const subscriptions = (record.message_subscriptions ?? []) as { queue_url?: string }[];
      return {
        id,
        url: endpoints.public.url,
        forks,
        queueUrls: subscriptions.flatMap((s) => (s.queue_url ? [s.queue_url] : [])),
      };
    }
    if (record.phase === 'failed' || Date.now() > deadline)
      throw new Error(`composition ${id} ${record.phase}: ${JSON.stringify(record.observed)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function destroyPreview(stack: Stack, id: string) {
  return api(stack, 'DELETE', `/v1/compositions/${id}`);
}

/** Each fork's replicas as its Deployment asks for them now (what KEDA scales). */
export async function forkReplicas(stack: Stack, preview: Pick<Preview, 'id' | 'forks'>): Promise<number[]> {
  return Promise.all(
    Object.keys(preview.forks).map(
      async (c) => (await stack.cluster.getDeployment(namespace, `${c}-${preview.id}`))?.spec.replicas ?? 0,
    ),
  );
}

/** Until every fork of `preview` is at zero replicas. */
export async function untilAsleep(stack: Stack, preview: Preview, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await forkReplicas(stack, preview)).some((r) => r > 0)) {
    if (Date.now() > deadline)
      throw new Error(`composition ${preview.id} did not sleep within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * What became of one request through the preview URL:
 * - `fork`: answered, every overridden component's hop by its fork;
 * - `waking`: answered, but a hop got the interceptor's bounded-hold 503 (`preview_waking`,
 *   `Retry-After`): the client is told to retry;
 * - `dropped`: a connection error, another status, a hop that failed otherwise, or a fork's hop
 *   answered by the baseline.
 */
export type Outcome = { kind: 'fork' | 'waking' | 'dropped'; ms: number; detail: string };

interface Report {
  component?: string | null;
  image?: string | null;
  calls?: { service: string; status: number; body?: unknown }[];
}

export async function requestPreview(stack: Stack, preview: Preview): Promise<Outcome> {
  const started = performance.now();
  try {
    const response = await gatewayFetch(stack.gatewayUrl, preview.url);
    const body = (await response.json().catch(() => null)) as Report | null;
    const ms = performance.now() - started;
    if (response.status !== 200 || !body) return { kind: 'dropped', ms, detail: `status ${response.status}` };
    const failed: string[] = [];
    let waking = false;
    const images = new Map<string, string>();
    const walk = (report: Report) => {
      if (report.component && report.image) images.set(report.component, report.image);
      for (const call of report.calls ?? []) {
        if (call.status === 200) walk((call.body ?? {}) as Report);
        else if ((call.body as { error?: string } | undefined)?.error === 'preview_waking') waking = true;
        else
          failed.push(
            `${call.service}=${call.status} ${(call.body as { error?: string } | undefined)?.error}`,
          );
      }
    };
    walk(body);
    if (failed.length > 0) return { kind: 'dropped', ms, detail: `hops failed: ${failed.join(', ')}` };
    if (waking) return { kind: 'waking', ms, detail: 'preview_waking' };
    const wrong = Object.entries(preview.forks).filter(([c, i]) => images.get(c) !== i);
    if (wrong.length > 0)
      return {
        kind: 'dropped',
        ms,
        detail: `not the fork: ${wrong.map(([c]) => `${c}=${images.get(c)}`).join(', ')}`,
      };
    return { kind: 'fork', ms, detail: '' };
  } catch (error) {
    return { kind: 'dropped', ms: performance.now() - started, detail: String(error) };
  }
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Runs `task` over `items`, `concurrency` at a time. */
export async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, i: number) => Promise<R>,
) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i] as T, i);
      }
    }),
  );
  return results;
}
