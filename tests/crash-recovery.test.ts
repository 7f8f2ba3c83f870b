/**
 * The whole local stack (`npm start`: API, worker, sweeps, DynamoDB Local, fauxqs, the local
 * cluster) SIGKILLed with 20 creates in flight, then started again on the same state: every
 * composition reaches ready within 30 s of the restart, pods' own 3 s excluded, and destroying them
 * leaves nothing in the cluster (docs/orchestration.md, Leases).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from '@svc/core';
import { fixedKubeConfig, kubeCluster, kubeConfigFromString } from '@svc/kube';
import { image } from '@svc/local/demo';
import { freePort, type HttpClient, httpClient } from '@svc/local/testing';
import { afterAll, describe, expect, it } from 'vitest';

const podReadyDelayMs = 3000;
const compositions = 20;

interface Running {
  child: ChildProcess;
  output: string[];
  exited: Promise<void>;
}

const stateDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
const running = new Set<Running>();

afterAll(async () => {
  for (const stack of running) {
    stack.child.kill('SIGTERM');
    await stack.exited;
  }
  rmSync(stateDir, { recursive: true, force: true });
});

/** `npm start`'s entry on free ports and this test's state directory. */
function startStack(ports: { api: number; gateway: number; forge: number }): Running {
  const child = spawn(process.execPath, ['packages/local/src/main.ts'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(ports.api),
      GATEWAY_PORT: String(ports.gateway),
      FORGE_PORT: String(ports.forge),
      POD_READY_DELAY_MS: String(podReadyDelayMs),
      SVC_STATE_DIR: stateDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk) => output.push(String(chunk)));
  child.stderr?.on('data', (chunk) => output.push(String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stack = { child, output, exited };
  running.add(stack);
  void exited.then(() => running.delete(stack));
  return stack;
}

async function answering(http: HttpClient, stack: Running, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await http.get('/healthz').catch(() => null);
    if (answer?.status === 200) return;
    if (stack.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the stack did not answer:\n${stack.output.join('').slice(-3000)}`);
}

/** Whether a process of the killed run (the DynamoDB Local JVM under its guard) still holds the state. */
function stateStillOpen(): boolean {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(stateDir)) return true;
    } catch {}
  }
  return false;
}

async function phases(http: HttpClient, ids: readonly string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await http.get(`/v1/compositions/${id}/status`)).body.phase));
}

async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return Date.now() - started;
}

describe('a crash of the whole stack', () => {
  it('brings every in-flight composition to ready within 30 s of the restart, and destroy leaves nothing', async () => {
    // The restarted stack listens where the killed one did, as `npm start` run again does: the
    // compositions in flight keep preview URLs naming the gateway's port. freePort picks below the
    // ephemeral range, so no other file's socket takes one while the stack is down.
    const api = await freePort();
    const gateway = await freePort('127.0.0.1', [api]);
    const ports = { api, gateway, forge: await freePort('127.0.0.1', [api, gateway]) };
    const http = httpClient(`http://127.0.0.1:${ports.api}`);
    const first = startStack(ports);
    await answering(http, first);

    const components = ['service-a', 'service-b', 'service-c', 'service-d'];
    const ids = await Promise.all(
      Array.from({ length: compositions }, async (_, i) => {
        const component = components[i % components.length] as string;
        const { status, body } = await http.post('/v1/compositions', {
          project: 'demo',
          baseline: 'staging',
          name: `crash-${i}`,
          overrides: { [component]: { image: image(component, `4.0.${i}`) } },
        });
        expect(status, JSON.stringify(body)).toBe(202);
        return body.id as string;
      }),
    );
    // Mid-rollout: every create picked up by a chain, most not ready yet (their pods take 3 s).
    let atKill: string[] = [];
    await until(
      'every create started',
      async () => {
        atKill = await phases(http, ids);
        return atKill.every((p) => p !== 'created');
      },
      30_000,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    await until('the killed run let go of its state', async () => !stateStillOpen(), 15_000, 200);
    console.log(`at the kill: ${atKill.filter((p) => p !== 'ready').length} of ${compositions} not ready`);
    expect(atKill.filter((p) => p !== 'ready').length).toBeGreaterThanOrEqual(compositions / 2);

    const second = startStack(ports);
    await answering(http, second);
    const restarted = Date.now();
    const readyAfterMs = await until(
      'every composition ready',
      async () => (await phases(http, ids)).every((p) => p === 'ready'),
      90_000,
      250,
    );
    console.log(
      `crash recovery: ${compositions} compositions ready ${(readyAfterMs / 1000).toFixed(1)} s after the restarted stack answered (pods ready after ${podReadyDelayMs / 1000} s)`,
    );
    expect(readyAfterMs - podReadyDelayMs).toBeLessThanOrEqual(30_000);
    expect(Date.now() - restarted).toBeGreaterThanOrEqual(readyAfterMs);

    for (const id of ids) expect((await http.delete(`/v1/compositions/${id}`)).status).toBe(202);
    await until(
      'every composition destroyed',
      async () => (await phases(http, ids)).every((p) => p === 'destroyed'),
      60_000,
      250,
    );
    const cluster = kubeCluster(
      fixedKubeConfig(kubeConfigFromString(readFileSync(join(stateDir, 'kubeconfig'), 'utf8'))),
    );
    const left = await Promise.all(
      ids.map((id) => cluster.list('staging', Cluster.CompositionKinds, Cluster.compositionSelector(id))),
    );
    expect(left.flat().map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([]);
  }, 300_000);
});
