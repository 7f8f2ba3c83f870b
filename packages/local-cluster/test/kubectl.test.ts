// Conformance with the machine's real kubectl (client 1.32) over HTTP.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, deploymentManifest, eventually, startTestCluster, type TestCluster } from './helpers.ts';

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

  it('creates with the typed commands, which send protobuf, and run', async () => {
    const core = t.kc.makeApiClient(CoreV1Api);
    const apps = t.kc.makeApiClient(AppsV1Api);
    expect(await ok('create', 'namespace', 'made')).toBe('namespace/made created\n');
    await ok(
      'create',
      'configmap',
      'settings',
      '-n',
      'made',
      '--from-literal=mode=fast',
      '--from-literal=greeting=hello world',
    );
    await ok('create', 'secret', 'generic', 'credentials', '-n', 'made', '--from-literal=password=s3cr3t!');
    await ok(
      'create',
      'deployment',
      'web',
      '-n',
      'made',
      '--image=registry.example/web:1',
      '--replicas=2',
      '--port=8080',
    );
    await ok('create', 'service', 'clusterip', 'web', '-n', 'made', '--tcp=80:8080');
    await ok('create', 'serviceaccount', 'robot', '-n', 'made');
    await ok(
      'run',
      'solo',
      '-n',
      'made',
      '--image=registry.example/solo:1',
      '--labels=tier=batch,team=a',
      '--port=9090',
      '--env=MODE=once',
    );

    const ns = await core.readNamespace({ name: 'made' });
    expect(ns.status?.phase).toBe('Active');
    expect(ns.metadata?.managedFields?.[0]?.manager).toBe('kubectl-create');
    const settings = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'made' });
    expect(settings.data).toEqual({ mode: 'fast', greeting: 'hello world' });
    const secret = await core.readNamespacedSecret({ name: 'credentials', namespace: 'made' });
    expect(secret.type).toBe('Opaque');
    expect(Buffer.from(secret.data?.password ?? '', 'base64').toString()).toBe('s3cr3t!');
    const web = await apps.readNamespacedDeployment({ name: 'web', namespace: 'made' });
    expect(web.metadata?.labels).toEqual({ app: 'web' });
    expect(web.spec?.replicas).toBe(2);
    expect(web.spec?.selector.matchLabels).toEqual({ app: 'web' });
    expect(web.spec?.template.spec?.containers).toMatchObject([
      { name: 'web', image: 'registry.example/web:1', ports: [{ containerPort: 8080, protocol: 'TCP' }] },
    ]);
    const service = await core.readNamespacedService({ name: 'web', namespace: 'made' });
    expect(service.spec?.type).toBe('ClusterIP');
    expect(service.spec?.selector).toEqual({ app: 'web' });
    expect(service.spec?.ports).toEqual([{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
    expect(service.spec?.clusterIP).toMatch(/^10\.96\./);
    expect(
      (await core.readNamespacedServiceAccount({ name: 'robot', namespace: 'made' })).metadata?.name,
    ).toBe('robot');
    const solo = await core.readNamespacedPod({ name: 'solo', namespace: 'made' });
    expect(solo.metadata?.labels).toEqual({ tier: 'batch', team: 'a' });
    expect(solo.spec?.containers[0]).toMatchObject({
      image: 'registry.example/solo:1',
      ports: [{ containerPort: 9090 }],
      env: [{ name: 'MODE', value: 'once' }],
    });

    await ok('rollout', 'status', 'deployment/web', '-n', 'made', '--timeout=20s');
    const endpoints = await core.readNamespacedEndpoints({ name: 'web', namespace: 'made' });
    expect(endpoints.subsets?.[0]?.addresses).toHaveLength(2);
    const again = await t.kubectl('create', 'namespace', 'made');
    expect(again.stderr).toContain('AlreadyExists');
  });

  it('answers auth can-i from the review it decodes', async () => {
    expect(await ok('auth', 'can-i', 'create', 'pods', '-n', 'made')).toBe('yes\n');
    const fault = await api(t.cluster, 'POST', '/_faults', {
      type: 'deny',
      match: { verb: 'delete', resource: 'secrets', namespace: 'made' },
    });
    try {
      const denied = await t.kubectl('auth', 'can-i', 'delete', 'secrets', '-n', 'made');
      expect(denied.stdout).toBe(`no - denied by fault ${fault.json.id}\n`);
      expect(await ok('auth', 'can-i', 'delete', 'secrets', '-n', 'k')).toBe('yes\n');
    } finally {
      await api(t.cluster, 'DELETE', `/_faults/${fault.json.id}`);
    }
  });

  it('lists the default RBAC roles, and answers auth can-i --list and auth whoami from them', async () => {
    const roles = await ok('get', 'clusterroles', '-o', 'jsonpath={.items[*].metadata.name}');
    expect(roles.split(' ')).toEqual(
      expect.arrayContaining([
        'cluster-admin',
        'system:basic-user',
        'system:discovery',
        'system:public-info-viewer',
      ]),
    );
    // Without users the cluster authenticates nobody: kubectl acts as an admin, as system:masters.
    const list = await ok('auth', 'can-i', '--list', '-n', 'made');
    expect(list.split('\n')[1]).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/);
    expect(await ok('auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}')).toBe('system:admin');
  });

  it('lists the Gateway API definitions with get crd and keeps them read-only', async () => {
    const table = await ok('get', 'crd');
    expect(table.split('\n')[0]).toMatch(/^NAME\s+CREATED AT$/);
    const names = await ok('get', 'crd', '-o', 'jsonpath={.items[*].metadata.name}');
    expect(names.split(' ')).toEqual(
      expect.arrayContaining([
        'gatewayclasses.gateway.networking.k8s.io',
        'gateways.gateway.networking.k8s.io',
        'httproutes.gateway.networking.k8s.io',
        'referencegrants.gateway.networking.k8s.io',
      ]),
    );
    const routes = JSON.parse(await ok('get', 'crd', 'httproutes.gateway.networking.k8s.io', '-o', 'json'));
    expect(routes.spec).toMatchObject({
      group: 'gateway.networking.k8s.io',
      scope: 'Namespaced',
      names: { kind: 'HTTPRoute', plural: 'httproutes', listKind: 'HTTPRouteList' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} } }],
    });
    const deleted = await t.kubectl('delete', 'crd', 'httproutes.gateway.networking.k8s.io');
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain('Forbidden');
    expect(await ok('get', 'httproutes', '-A')).toBe('');
    expect(await ok('get', 'gateways', '-n', 'svc-system', '-o', 'name')).toBe(
      'gateway.gateway.networking.k8s.io/preview\n',
    );
  });

  it('explains the built-in kinds from the upstream schemas, down to nested fields', async () => {
    const deployment = await ok('explain', 'deployment');
    expect(deployment).toMatch(/GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1/);
    expect(deployment).toContain('Deployment enables declarative updates for Pods and ReplicaSets.');
    const replicas = await ok('explain', 'deployments.spec.replicas');
    expect(replicas).toMatch(/FIELD:\s+replicas <integer>/);
    expect(replicas).toContain('Number of desired pods.');
    const image = await ok('explain', 'pods.spec.containers.image');
    expect(image).toMatch(/FIELD:\s+image <string>/);
    expect(image).toContain('Docker image name.');
    const recursive = await ok('explain', 'svc.spec', '--recursive');
    expect(recursive).toMatch(/ports\s+<\[\]ServicePort>/);
    expect(recursive).toMatch(/port\s+<integer> -required-/);
    for (const kind of [
      'namespace',
      'configmap',
      'secret',
      'serviceaccount',
      'replicaset',
      'endpointslice',
      'lease',
      'crd',
    ]) {
      expect(await ok('explain', kind)).toMatch(/DESCRIPTION:\n\s+\S/);
    }
  });

  it('explains a kind served without a schema as a real cluster does a schemaless custom resource', async () => {
    const route = await ok('explain', 'httproutes');
    expect(route).toMatch(/GROUP:\s+gateway\.networking\.k8s\.io\nKIND:\s+HTTPRoute\nVERSION:\s+v1/);
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
