/**
 * The local cluster holds the service's identities to deploy/kubernetes/rbac.yaml, as EKS would:
 * through @kubernetes/client-node with the kubeconfigs the stack gives the API and the worker, the
 * API may read but never write, the worker writes only in a baseline namespace, and a refusal is
 * the Status a real API server answers.
 */
import {
  ApiException,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  type V1Deployment,
} from '@kubernetes/client-node';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
useTestStack({}, (started) => {
  ({ stack } = started);
});

function clientOf(identity: 'api' | 'worker') {
  const config = new KubeConfig();
  config.loadFromFile(stack.localClusterOf('local').kubeconfigs[identity]);
  return config;
}

const deployment = (name: string): V1Deployment => ({
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'app', image: 'registry.example.com/demo/rbac:1.0.0' }] },
    },
  },
});

/** The Status body of a refused call. */
async function refusal(call: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  const error = await call.then(
    () => {
      throw new Error('the call was allowed');
    },
    (e: unknown) => e,
  );
  if (!(error instanceof ApiException)) throw error;
  return { code: error.code, body: JSON.parse(String(error.body)) as Record<string, unknown> };
}

describe("the local cluster's RBAC, from deploy/kubernetes/rbac.yaml", () => {
  it("refuses the API's identity a Deployment create, dry run or not, with a Forbidden Status", async () => {
    const apps = clientOf('api').makeApiClient(AppsV1Api);
    const message =
      'deployments.apps is forbidden: User "preview-composition-api" cannot create resource "deployments" in API group "apps" in the namespace "staging"';
    for (const dryRun of [{}, { dryRun: 'All' }]) {
      const refused = await refusal(
        apps.createNamespacedDeployment({ namespace: 'staging', body: deployment('from-api'), ...dryRun }),
      );
      expect(refused).toEqual({
        code: 403,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message,
          reason: 'Forbidden',
          details: { group: 'apps', kind: 'deployments' },
          code: 403,
        },
      });
    }
    const patch = await refusal(apps.deleteNamespacedDeployment({ namespace: 'staging', name: 'service-a' }));
    expect(patch.body).toMatchObject({
      message:
        'deployments.apps "service-a" is forbidden: User "preview-composition-api" cannot delete resource "deployments" in API group "apps" in the namespace "staging"',
      details: { name: 'service-a', group: 'apps', kind: 'deployments' },
    });
    // What it does need: the baseline's Deployments by name, pods and their logs.
    expect(
      (await apps.readNamespacedDeployment({ namespace: 'staging', name: 'service-a' })).metadata?.name,
    ).toBe('service-a');
    const core = clientOf('api').makeApiClient(CoreV1Api);
    const [pod] = (
      await core.listNamespacedPod({
        namespace: 'staging',
        labelSelector: 'app.kubernetes.io/name=service-a',
      })
    ).items;
    expect(
      await core.readNamespacedPodLog({ namespace: 'staging', name: pod?.metadata?.name ?? '' }),
    ).toContain('ready');
  });

  it("lets the worker's identity create and delete a Deployment in a baseline namespace, and nowhere else", async () => {
    const apps = clientOf('worker').makeApiClient(AppsV1Api);
    const created = await apps.createNamespacedDeployment({
      namespace: 'staging',
      body: deployment('from-worker'),
    });
    expect(created.metadata?.namespace).toBe('staging');
    await apps.deleteNamespacedDeployment({ namespace: 'staging', name: 'from-worker' });
    const elsewhere = await refusal(
      apps.createNamespacedDeployment({ namespace: 'default', body: deployment('from-worker') }),
    );
    expect(elsewhere.code).toBe(403);
    // Pod logs are the API's to read, not the worker's.
    const logs = await refusal(
      clientOf('worker').makeApiClient(CoreV1Api).readNamespacedPodLog({ namespace: 'staging', name: 'any' }),
    );
    expect(logs.body).toMatchObject({ details: { name: 'any', group: '', kind: 'pods' } });
    expect(logs.body.message).toContain('cannot get resource "pods/log"');
  });

  it('answers the reviews truthfully: what an identity may do, and what the worker may, asked by the API', async () => {
    const authorization = clientOf('api').makeApiClient(AuthorizationV1Api);
    const resourceAttributes = {
      verb: 'create',
      group: 'apps',
      resource: 'deployments',
      namespace: 'staging',
    };
    const self = await authorization.createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes } },
    });
    expect(self.status?.allowed).toBe(false);
    const worker = await authorization.createNamespacedLocalSubjectAccessReview({
      namespace: 'staging',
      body: {
        metadata: { namespace: 'staging' },
        spec: { groups: ['preview-composition-worker'], resourceAttributes },
      },
    });
    expect(worker.status).toMatchObject({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "preview-composition-worker/staging" of ClusterRole "preview-composition-worker" to Group "preview-composition-worker"',
    });
    const rules = await authorization.createSelfSubjectRulesReview({
      body: { spec: { namespace: 'staging' } },
    });
    const verbsOn = (resource: string) =>
      rules.status?.resourceRules.filter((r) => r.resources?.includes(resource)).flatMap((r) => r.verbs);
    expect(verbsOn('deployments')).toEqual(['get', 'list']);
    expect(rules.status?.nonResourceRules.flatMap((r) => r.nonResourceURLs)).toContain('/apis/*');
  });

  it('answers 401 for a token nobody has', async () => {
    const response = await fetch(`${stack.clusterUrl}/api/v1/namespaces`, {
      headers: { authorization: 'Bearer not-a-token-of-this-cluster' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});
