/**
 * The adapter under RBAC, against the local cluster: it says who its identity is, reviews its own
 * access or a group's, and leaves a refusal to its caller.
 */
import { type Cluster, DependencyUnavailableError } from '@svc/core';
import { type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromString } from './config.ts';

let local: LocalCluster;
const as = (user: string) =>
  kubeCluster(fixedKubeConfig(kubeConfigFromString(local.kubeconfig('local', user))), {
    retry: { attempts: 3, baseDelayMs: 1 },
  });
const rbac = 'rbac.authorization.k8s.io';

beforeAll(async () => {
  local = await startLocalCluster({
    gatewayPort: 0,
    users: [
      { token: 'admin-token', name: 'admin', groups: ['system:masters'] },
      { token: 'api-token', name: 'api', groups: ['preview-composition-api'] },
    ],
  });
  const admin = as('admin');
  const objects: Cluster.ClusterObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'staging' } },
    {
      apiVersion: `${rbac}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'writer' },
      rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'patch'] }],
    },
    {
      apiVersion: `${rbac}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'writer', namespace: 'staging' },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'writer' },
      subjects: [{ apiGroup: rbac, kind: 'Group', name: 'preview-composition-worker' }],
    },
    {
      apiVersion: `${rbac}/v1`,
      kind: 'Role',
      metadata: { name: 'reviewer', namespace: 'staging' },
      rules: [
        { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
      ],
    },
    {
      apiVersion: `${rbac}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'reviewer', namespace: 'staging' },
      roleRef: { apiGroup: rbac, kind: 'Role', name: 'reviewer' },
      subjects: [{ apiGroup: rbac, kind: 'Group', name: 'preview-composition-api' }],
    },
  ];
  for (const object of objects) await admin.apply(object);
});

afterAll(() => local?.stop());

describe('the adapter of an identity under RBAC', () => {
  it('says who it is: its user and groups', async () => {
    expect(await as('api').identity()).toEqual({
      user: 'api',
      groups: ['preview-composition-api', 'system:authenticated'],
    });
  });

  it("reviews its own access, or a group's in the request's namespace", async () => {
    const create = { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'staging' };
    const api = as('api');
    expect(await api.reviewAccess([create])).toEqual([{ allowed: false, reason: '' }]);
    const asWorker = { groups: ['preview-composition-worker'] };
    expect(await api.reviewAccess([create], asWorker)).toEqual([
      {
        allowed: true,
        reason:
          'RBAC: allowed by RoleBinding "writer/staging" of ClusterRole "writer" to Group "preview-composition-worker"',
      },
    ]);
    // Where the API may not ask, the cluster refuses the review: no answer, not a "no".
    await expect(api.reviewAccess([{ ...create, namespace: 'default' }], asWorker)).rejects.toMatchObject({
      code: 403,
    });
  });

  it('leaves a refused write to the caller as the 403 it is, not an outage', async () => {
    const error = await as('api')
      .apply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'staging' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1' }] },
          },
        },
      })
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ code: 403 });
  });
});
