import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalCluster } from '@svc/local-cluster';
import { afterAll, describe, expect, it } from 'vitest';
import {
  clusterVariables,
  gatewayPortOf,
  type LocalClusterRun,
  localClusterNames,
  nameOutsideClusters,
} from './clusters.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-clusters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A local cluster as `clusterVariables` reads it: its kubeconfig file and its gateway's port. */
const run = (name: string, gatewayPort: number): LocalClusterRun => ({
  name,
  cluster: { gatewayUrl: `http://127.0.0.1:${gatewayPort}` } as LocalCluster,
  kubeconfigPath: `/state/kubeconfig-${name}`,
  kubeconfigs: { api: `/state/kubeconfig-${name}-api`, worker: `/state/kubeconfig-${name}-worker` },
  users: [],
  dataDir: null,
});

function kubeconfig(contexts: string[], current: string): string {
  const path = join(dir, `kubeconfig-${contexts.join('-').replace(/\W/g, '_')}`);
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    ...contexts.flatMap((c) => [`  - name: "${c}"`, '    cluster: { server: "http://127.0.0.1:1" }']),
    'users:',
    '  - name: u',
    '    user: { token: "a-secret-token" }',
    'contexts:',
    ...contexts.flatMap((c) => [`  - name: "${c}"`, `    context: { cluster: "${c}", user: u }`]),
    `current-context: "${current}"`,
    '',
  ];
  writeFileSync(path, yaml.join('\n'));
  return path;
}

describe('the stack’s own clusters', () => {
  // Each function reaches them with its own identity; an outside cluster with its own kubeconfig.
  it('are local, local-2…, with gateways on the port asked for and two and more above it', () => {
    expect(localClusterNames(3)).toEqual(['local', 'local-2', 'local-3']);
    expect([0, 1, 2].map((i) => gatewayPortOf(8082, i))).toEqual([8082, 8084, 8085]);
    expect([0, 1].map((i) => gatewayPortOf(0, i))).toEqual([0, 0]);
  });

  it('are one KUBECONFIG alone, as plain npm start always had, and CLUSTERS with each gateway’s URL otherwise', () => {
    expect(clusterVariables([run('local', 8082)], [], 'api')).toEqual({
      KUBECONFIG: '/state/kubeconfig-local-api',
    });
    const several = clusterVariables(
      [run('local', 8082), run('local-2', 8084)],
      [{ name: 'team', kubeconfig: '/home/team/.kube/config', context: 'team' }],
      'worker',
    );
    expect(JSON.parse(several.CLUSTERS ?? '')).toEqual({
      local: { kubeconfig: '/state/kubeconfig-local-worker', preview_url: 'http://{id}.{domain}:8082/' },
      'local-2': {
        kubeconfig: '/state/kubeconfig-local-2-worker',
        preview_url: 'http://{id}.{domain}:8084/',
      },
      team: { kubeconfig: '/home/team/.kube/config', context: 'team', preview_url: 'http://{id}.{domain}/' },
    });
  });
});

describe('a cluster from outside', () => {
  it('is named after its context: the one given, else the file’s current one', () => {
    const file = kubeconfig(['kind-team', 'other'], 'other');
    expect(nameOutsideClusters([{ kubeconfig: file }], ['local'])).toEqual([
      { kubeconfig: file, name: 'other' },
    ]);
    expect(nameOutsideClusters([{ kubeconfig: file, context: 'kind-team' }], ['local'])[0]?.name).toBe(
      'kind-team',
    );
  });

  it('is refused when its context cannot name a cluster, or names one the stack has, never quoting the file', () => {
    const spaced = kubeconfig(['my cluster'], 'my cluster');
    expect(() => nameOutsideClusters([{ kubeconfig: spaced }], ['local'])).toThrow(
      /the context "my cluster" of .* cannot name a cluster/,
    );
    const local = kubeconfig(['local'], 'local');
    expect(() => nameOutsideClusters([{ kubeconfig: local }], ['local'])).toThrow(
      /has the name of another cluster of the stack/,
    );
    const broken = join(dir, 'broken');
    writeFileSync(broken, 'users: [ { token: a-secret-token');
    const refusal = (() => {
      try {
        nameOutsideClusters([{ kubeconfig: broken }], ['local']);
      } catch (error) {
        return String(error);
      }
      return 'accepted';
    })();
    expect(refusal).toContain(`${broken} is not a kubeconfig`);
    expect(refusal).not.toContain('a-secret-token');
    expect(() => nameOutsideClusters([{ kubeconfig: join(dir, 'missing') }], [])).toThrow(/\(ENOENT\)/);
  });
});
