/**
 * A cluster of the team's own, as `npm start -- --kubeconfig FILE --context NAME` adds it: here a
 * local cluster started on its own, with a token, reached by the stack only through a kubeconfig
 * file, as a remote one would be. The team runs its baseline there; once the installation check
 * passed for the cluster, previews of that baseline are made on it and answer through its own
 * Gateway. A context whose cluster fails the check is refused, naming the check.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checks } from '@svc/core';
import { clusterFromSettings } from '@svc/kube';
import type { Stack } from '@svc/local';
import { demoManifestAs, deployBaselineOf, image } from '@svc/local/demo';
import { freePort, httpClient, startTestStack } from '@svc/local/testing';
import { gatewayFetch, type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../packages/cli/test/helpers.ts';
import { waitForPhase } from './support/compositions.ts';

let team: LocalCluster;
let dir: string;
let kubeconfig: string;
const token = 'a-token-only-the-kubeconfig-holds';

/** One kubeconfig, two contexts: the team's cluster, and one whose server nobody answers at. */
async function writeKubeconfig(server: string, closed: string): Promise<string> {
  const path = join(dir, 'kubeconfig');
  const entry = (name: string, url: string) => ({ name, url });
  const clusters = [entry('team-staging', server), entry('broken', closed)];
  await writeFile(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      ...clusters.flatMap((c) => [
        `  - name: ${c.name}`,
        '    cluster:',
        `      server: ${c.url}`,
        '      insecure-skip-tls-verify: true',
      ]),
      'users:',
      '  - name: team',
      `    user: { token: ${token} }`,
      'contexts:',
      ...clusters.flatMap((c) => [`  - name: ${c.name}`, `    context: { cluster: ${c.name}, user: team }`]),
      'current-context: broken',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-outside-'));
  team = await startLocalCluster({
    podReadyDelayMs: 20,
    users: [{ token, name: 'team', groups: ['system:masters'] }],
  });
  kubeconfig = await writeKubeconfig(team.url, `http://127.0.0.1:${await freePort()}`);
  // The team's own baseline, deployed as the team would: through its kubeconfig, not the stack.
  const teamCluster = clusterFromSettings({ kubeconfig, context: 'team-staging' });
  await deployBaselineOf(teamCluster, teamManifest(), 'team');
});

afterAll(async () => {
  await team?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The demo project as the team's: its baseline in namespace `team` on the cluster `team-staging`. */
function teamManifest() {
  const manifest = demoManifestAs('team');
  for (const baseline of manifest.projects.flatMap((p) => p.baselines)) {
    baseline.cluster = 'team-staging';
    baseline.messaging = null;
  }
  return manifest;
}

describe('a cluster of the team’s own', () => {
  let stack: Stack;
  afterAll(() => stack?.stop());

  it('serves previews of its baseline through its own Gateway once the installation check passed', async () => {
    const gatewayPort = new URL(team.gatewayUrl).port;
    stack = await startTestStack({
      outsideClusters: [
        { kubeconfig, context: 'team-staging', previewUrl: `http://{id}.{domain}:${gatewayPort}/` },
      ],
    });
    const http = httpClient(stack.apiUrl);
    expect(stack.clusters.names).toEqual(['local', 'team-staging']);
    const health = await http.get('/healthz');
    expect(health.body.dependencies['cluster:team-staging']).toMatchObject({ status: 'ok' });

    expect((await http.post('/v1/catalog/apply', teamManifest())).status).toBe(200);
    const created = await http.post('/v1/compositions', {
      project: 'team',
      name: 'on-team',
      overrides: { 'service-b': { image: image('service-b', '2.0.0') } },
    });
    expect(created.status).toBe(202);
    expect(new URL(created.body.endpoints.public.url).port).toBe(gatewayPort);
    const ready = await waitForPhase(http, created.body.id, ['ready', 'failed']);
    expect(ready.phase).toBe('ready');
    const answer = await gatewayFetch(team.gatewayUrl, ready.endpoints.public.url);
    const hops = Checks.hopsOf(await answer.json()) ?? [];
    expect(hops.find((h) => h.component === 'service-b')?.image).toBe(image('service-b', '2.0.0'));
    const diagnosis = await http.get(`/v1/compositions/${created.body.id}/diagnosis`);
    expect(diagnosis.body).toMatchObject({ cluster: 'team-staging', state: 'healthy' });

    const check = await http.post('/v1/installation/check', { clusters: ['team-staging'] });
    const failed = check.body.checks.filter((c: { status: string }) => c.status === 'failed');
    expect(failed).toEqual([]);
    expect(check.body.checks.map((c: { id: string }) => c.id)).toContain('workload:team/staging/service-b');
  });

  it('is refused when it fails the installation check, naming the check', async () => {
    const refused = await startTestStack({ outsideClusters: [{ kubeconfig }] }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'OutsideClusterRefused' });
    expect(String((refused as Error).message)).toMatch(
      /^cluster "broken" \(.*kubeconfig\) failed the installation check, so the stack does not use it: cluster:broken: cluster "broken": the Kubernetes API server cannot be reached/,
    );
    expect(String((refused as Error).message)).not.toContain(token);
  });

  it('is refused by name when the kubeconfig has no such context, or it is named like one of the stack’s', async () => {
    const unknown = await startTestStack({ outsideClusters: [{ kubeconfig, context: 'prod' }] }).catch(
      (e: unknown) => e,
    );
    expect((unknown as Error).message).toBe(
      `kubeconfig ${kubeconfig} has no context "prod" (it has "team-staging", "broken")`,
    );
    const local = join(dir, 'local-kubeconfig');
    await writeFile(local, team.kubeconfig('local'));
    const taken = await startTestStack({ outsideClusters: [{ kubeconfig: local }] }).catch((e: unknown) => e);
    expect((taken as Error).message).toMatch(/has the name of another cluster of the stack/);
  });

  it('makes npm start exit with the reason when it refuses it', async () => {
    const port = await freePort();
    const gatewayPort = await freePort('127.0.0.1', [port]);
    const forgePort = await freePort('127.0.0.1', [port, gatewayPort]);
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'packages/local/src/main.ts'), '--kubeconfig', kubeconfig, '--context', 'prod'],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          PORT: String(port),
          GATEWAY_PORT: String(gatewayPort),
          FORGE_PORT: String(forgePort),
          SVC_STATE_DIR: join(dir, 'state'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `kubeconfig ${kubeconfig} has no context "prod" (it has "team-staging", "broken")`,
    );
  });
});

describe('what a cluster’s address and answers carry', () => {
  /** Passes requests to the team's cluster, or answers each as a hostile one would: echoing our token. */
  let proxy: Server;
  let echoing = false;
  let file: string;
  const password = 'a-password-inside-the-address';

  beforeAll(async () => {
    proxy = createServer((incoming, outgoing) => {
      if (echoing) {
        incoming.resume();
        outgoing.writeHead(503, { 'content-type': 'application/json' });
        outgoing.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'ServiceUnavailable',
            message: `upstream refused ${incoming.headers.authorization}`,
            code: 503,
          }),
        );
        return;
      }
      const upstream = new URL(team.url);
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      out.on('error', () => outgoing.destroy());
      incoming.pipe(out);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const teamAddress = new URL(team.url);
    const servers = {
      proxied: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      'with-userinfo': `http://ops:${password}@${teamAddress.host}`,
    };
    file = join(dir, 'kubeconfig-more');
    await writeFile(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        ...Object.entries(servers).flatMap(([name, server]) => [
          `  - name: ${name}`,
          `    cluster: { server: "${server}", insecure-skip-tls-verify: true }`,
        ]),
        'users:',
        '  - name: team',
        `    user: { token: ${token} }`,
        'contexts:',
        ...Object.keys(servers).map(
          (name) => `  - { name: ${name}, context: { cluster: ${name}, user: team } }`,
        ),
        'current-context: proxied',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
  });
  afterAll(() => new Promise((resolve) => proxy?.close(resolve)));

  it('refuses a server address holding credentials without repeating them', async () => {
    const refused = await startTestStack({
      outsideClusters: [{ kubeconfig: file, context: 'with-userinfo' }],
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'OutsideClusterRefused' });
    expect((refused as Error).message).toContain(
      'the server address of cluster "with-userinfo" carries credentials',
    );
    expect((refused as Error).message).not.toContain(password);
  });

  it('never quotes a cluster echoing our token, in the health log or in the installation check’s refusal', async () => {
    const logged: string[] = [];
    const stack = await startTestStack({
      outsideClusters: [{ kubeconfig: file, context: 'proxied' }],
      log: (entry) => logged.push(JSON.stringify(entry)),
    });
    try {
      echoing = true;
      const health = await httpClient(stack.apiUrl).get('/healthz');
      expect(health.body.dependencies['cluster:proxied']).toMatchObject({ status: 'error' });
      const said = logged.filter(
        (line) => line.includes('dependency check failed') && line.includes('proxied'),
      );
      expect(said).toEqual([expect.stringContaining('HTTP 503 ServiceUnavailable')]);
      expect(logged.filter((line) => line.includes(token))).toEqual([]);
    } finally {
      await stack.stop();
    }
    const refused = await startTestStack({
      outsideClusters: [{ kubeconfig: file, context: 'proxied' }],
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'OutsideClusterRefused' });
    expect((refused as Error).message).toContain('HTTP 503 ServiceUnavailable');
    expect((refused as Error).message).not.toContain(token);
    echoing = false;
  });
});
