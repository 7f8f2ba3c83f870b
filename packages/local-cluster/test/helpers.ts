// Shared setup for the conformance tests: a cluster on free ports, a client-node KubeConfig and a
// runner for the machine's real kubectl.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { type LocalCluster, type LocalClusterOptions, startLocalCluster } from '../src/index.ts';

export const POD_READY_DELAY_MS = 20;

export interface TestCluster {
  cluster: LocalCluster;
  kc: KubeConfig;
  kubectl: (...args: string[]) => Promise<{ stdout: string; stderr: string; code: number }>;
  stop: () => Promise<void>;
}

export async function startTestCluster(options: LocalClusterOptions = {}): Promise<TestCluster> {
  const cluster = await startLocalCluster({ podReadyDelayMs: POD_READY_DELAY_MS, ...options });
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  const dir = mkdtempSync(join(tmpdir(), 'local-cluster-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cluster.kubeconfig());
  const kubectl = (...args: string[]) =>
    new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
      execFile(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { timeout: 60_000, env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dir } },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ stdout, stderr, code });
        },
      );
    });
  return {
    cluster,
    kc,
    kubectl,
    stop: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value (not undefined) or the timeout passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function deploymentManifest(
  name: string,
  image: string,
  replicas = 1,
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, 'app.kubernetes.io/name': name } },
        spec: { containers: [{ name, image, ports: [{ containerPort: 8080 }] }] },
      },
      ...extra,
    },
  };
}

export async function api(
  cluster: LocalCluster,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
) {
  const res = await fetch(`${cluster.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': contentType },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  // Tests read fields of whatever JSON the server answered; a loose type keeps them short.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}
