// Conformance with the machine's real kubectl (client 1.32) over HTTP.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentManifest, eventually, startTestCluster, type TestCluster } from './helpers.ts';

let t: TestCluster;
const dir = mkdtempSync(join(tmpdir(), 'kubectl-manifests-'));

function manifest(name: string, object: unknown): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(object));
  return file;
}

async function ok(...args: string[]): Promise<string> {
  const r = await t.kubectl(...args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  // kubectl (client-go) sends credentials only over https, so this cluster runs without a token.
  t = await startTestCluster();
  await ok('apply', '-f', manifest('ns', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'k' } }));
});
afterAll(() => t.stop());

describe('kubectl', () => {
  it('creates from a file, gets with set-based selectors and reads jsonpath', async () => {
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest('sel-a', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'sel-a', labels: { tier: 'web' } },
      }),
    );
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest('sel-b', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'sel-b', labels: { tier: 'db' } },
      }),
    );
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest('sel-c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sel-c' } }),
    );
    const names = (selector: string) =>
      ok('get', 'cm', '-n', 'k', '-l', selector, '-o', 'jsonpath={.items[*].metadata.name}');
    expect(await names('tier in (web,api)')).toBe('sel-a');
    expect(await names('tier notin (web),tier')).toBe('sel-b');
    expect(await names('!tier')).toBe('sel-c');
    const table = await ok('get', 'configmaps', '-n', 'k');
    expect(table).toMatch(/^NAME\s/);
    expect(table).toContain('sel-b');
  });

  it('streams changes with get -w', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, t.cluster.kubeconfig());
    const child = spawn(
      'kubectl',
      [
        '--kubeconfig',
        kubeconfig,
        '--cache-dir',
        join(dir, 'cache'),
        'get',
        'cm',
        '-n',
        'k',
        '-w',
        '--output-watch-events',
        '-l',
        'watched=yes',
      ],
      {
        env: { ...process.env, HOME: dir },
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    try {
      await ok(
        'apply',
        '-n',
        'k',
        '-f',
        manifest('w1', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'w1', labels: { watched: 'yes' } },
        }),
      );
      await eventually(() => (out.includes('ADDED') ? true : undefined), 10_000);
      await ok('label', 'cm', 'w1', '-n', 'k', 'extra=1');
      await ok('delete', 'cm', 'w1', '-n', 'k');
      await eventually(() => (out.includes('DELETED') ? true : undefined), 10_000);
    } finally {
      child.kill();
    }
    const rows = out
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/).slice(0, 2).join(' '));
    expect(rows).toEqual(['EVENT NAME', 'ADDED w1', 'MODIFIED w1', 'DELETED w1']);
  });

  it('follows a rollout with rollout status and set image', async () => {
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest('web', deploymentManifest('web', 'registry.example/web:1', 3)),
    );
    expect(await ok('rollout', 'status', 'deployment/web', '-n', 'k', '--timeout=20s')).toContain(
      'successfully rolled out',
    );
    await ok('set', 'image', 'deployment/web', '-n', 'k', 'web=registry.example/web:2');
    const status = await ok('rollout', 'status', 'deployment/web', '-n', 'k', '--timeout=20s');
    expect(status).toContain('deployment "web" successfully rolled out');
    const images = await ok(
      'get',
      'pods',
      '-n',
      'k',
      '-l',
      'app=web',
      '-o',
      'jsonpath={.items[*].spec.containers[0].image}',
    );
    expect(images.split(' ')).toEqual([
      'registry.example/web:2',
      'registry.example/web:2',
      'registry.example/web:2',
    ]);
    const table = await ok('get', 'pods', '-n', 'k', '-l', 'app=web');
    expect(table.split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(table).toMatch(/web-\S+\s+1\/1\s+Running\s+0\s+/);
    expect(await ok('get', 'deployment', 'web', '-n', 'k')).toMatch(/web\s+3\/3\s+3\s+3\s+/);
  });

  it('reports a failed rollout', async () => {
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest(
        'stuck',
        deploymentManifest('stuck', 'registry.example/stuck:1-missing', 1, { progressDeadlineSeconds: 1 }),
      ),
    );
    const r = await t.kubectl('rollout', 'status', 'deployment/stuck', '-n', 'k', '--timeout=20s');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('exceeded its progress deadline');
  });

  it('reads logs with --tail', async () => {
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest('logs', deploymentManifest('logs', 'registry.example/logs:1')),
    );
    await ok('rollout', 'status', 'deployment/logs', '-n', 'k', '--timeout=20s');
    expect(await ok('logs', '--tail=1', 'deployment/logs', '-n', 'k')).toBe('ready\n');
    const all = await ok('logs', 'deployment/logs', '-n', 'k', '--timestamps');
    expect(all.trim().split('\n')).toHaveLength(3);
  });

  it('refuses a replace with a stale object', async () => {
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest('stale', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'stale' },
        data: { v: '1' },
      }),
    );
    const current = await ok('get', 'cm', 'stale', '-n', 'k', '-o', 'json');
    const file = join(dir, 'stale-copy.json');
    writeFileSync(file, current);
    await ok('patch', 'cm', 'stale', '-n', 'k', '--type=merge', '-p', '{"data":{"v":"2"}}');
    const r = await t.kubectl('replace', '-f', file);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Conflict');
    expect(r.stderr).toContain('the object has been modified');
  });

  it('patches with merge, JSON and strategic patches', async () => {
    await ok(
      'apply',
      '-n',
      'k',
      '-f',
      manifest('patched', deploymentManifest('patched', 'registry.example/p:1')),
    );
    await ok(
      'patch',
      'deployment',
      'patched',
      '-n',
      'k',
      '--type=merge',
      '-p',
      '{"metadata":{"labels":{"merged":"yes"}}}',
    );
    await ok(
      'patch',
      'deployment',
      'patched',
      '-n',
      'k',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/replicas","value":2}]',
    );
    await ok(
      'patch',
      'deployment',
      'patched',
      '-n',
      'k',
      '--type=strategic',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"patched","env":[{"name":"A","value":"1"}]}]}}}}',
    );
    const d = JSON.parse(await ok('get', 'deployment', 'patched', '-n', 'k', '-o', 'json'));
    expect(d.metadata.labels.merged).toBe('yes');
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.template.spec.containers[0]).toMatchObject({
      name: 'patched',
      image: 'registry.example/p:1',
      env: [{ name: 'A', value: '1' }],
    });
  });

  it('applies server-side with field ownership and conflicts', async () => {
    const base = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ssa', namespace: 'k' },
      data: { a: '1', b: '2' },
    };
    expect(await ok('apply', '--server-side', '-f', manifest('ssa', base))).toContain('serverside-applied');
    await ok('apply', '--server-side', '-f', manifest('ssa2', { ...base, data: { a: '1' } }));
    const cm = JSON.parse(await ok('get', 'cm', 'ssa', '-n', 'k', '-o', 'json', '--show-managed-fields'));
    expect(cm.data).toEqual({ a: '1' });
    expect(cm.metadata.managedFields[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply' });
    const other = await t.kubectl(
      'apply',
      '--server-side',
      '--field-manager=other',
      '-f',
      manifest('ssa3', { ...base, data: { a: 'x' } }),
    );
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('conflict with "kubectl"');
    await ok(
      'apply',
      '--server-side',
      '--field-manager=other',
      '--force-conflicts',
      '-f',
      manifest('ssa4', { ...base, data: { a: 'x' } }),
    );
    expect(await ok('get', 'cm', 'ssa', '-n', 'k', '-o', 'jsonpath={.data.a}')).toBe('x');
  });

  it('deletes a deployment and garbage-collects its replica sets and pods', async () => {
    await ok('apply', '-n', 'k', '-f', manifest('gc', deploymentManifest('gc', 'registry.example/gc:1', 2)));
    await ok('rollout', 'status', 'deployment/gc', '-n', 'k', '--timeout=20s');
    expect(await ok('get', 'pods', '-n', 'k', '-l', 'app=gc', '-o', 'name')).not.toBe('');
    await ok('delete', 'deployment', 'gc', '-n', 'k');
    await eventually(async () =>
      (await ok('get', 'rs,pods', '-n', 'k', '-l', 'app=gc', '-o', 'name')) === '' ? true : undefined,
    );
  });
});
