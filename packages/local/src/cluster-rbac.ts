/**
 * The stack's own clusters hold the services to deploy/kubernetes/rbac.yaml, the manifest operators
 * apply: the stack applies it as an operator would, its per-baseline RoleBindings copied into each
 * baseline namespace, so the API's and the worker's identities may do there exactly what they may
 * on a real cluster. kubectl sends no credentials over plain http, so requests without any act as
 * the operator (`system:unauthenticated` is bound to cluster-admin), as before there was RBAC.
 */
import { readFileSync } from 'node:fs';
import type { Cluster } from '@svc/core';
import { clusterFromSettings } from '@svc/kube';
import YAML from 'yaml';

const manifestPath = new URL('../../../deploy/kubernetes/rbac.yaml', import.meta.url);

/** The manifest's example baseline namespace: its objects there are copied into every baseline namespace. */
const templateNamespace = 'staging';

const rbacApiVersion = 'rbac.authorization.k8s.io/v1';

let manifest: Cluster.ClusterObject[] | undefined;

function manifestObjects(): Cluster.ClusterObject[] {
  manifest ??= YAML.parseAllDocuments(readFileSync(manifestPath, 'utf8'))
    .map((document) => document.toJS() as Cluster.ClusterObject | null)
    .filter((object) => object !== null);
  return manifest;
}

const inNamespace = (object: Cluster.ClusterObject, namespace: string): Cluster.ClusterObject => ({
  ...object,
  metadata: { ...object.metadata, namespace },
});

/** What the manifest grants in one baseline namespace: the namespace, and its RoleBindings there. */
export function baselineAccess(namespace: string): Cluster.ClusterObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    ...manifestObjects()
      .filter((o) => o.metadata.namespace === templateNamespace)
      .map((o) => inNamespace(o, namespace)),
  ];
}

const kubectlBinding: Cluster.ClusterObject = {
  apiVersion: rbacApiVersion,
  kind: 'ClusterRoleBinding',
  metadata: { name: 'local-stack:kubectl' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' }],
};

/** Server-side applies the objects in order (a namespace before what it holds). */
export async function applyAll(cluster: Cluster.ClusterPort, objects: readonly Cluster.ClusterObject[]) {
  for (const object of objects) await cluster.apply(object);
}

/**
 * Applies the manifest to one of the stack's clusters as its operator: every object outside the
 * template namespace as written, and the demo's baseline namespace (`staging` on every local cluster).
 */
export async function grantStackAccess(run: { kubeconfigPath: string }): Promise<void> {
  const operator = clusterFromSettings({ kubeconfig: run.kubeconfigPath });
  const namespaces = manifestObjects()
    .map((o) => o.metadata.namespace)
    .filter((ns): ns is string => ns !== undefined && ns !== templateNamespace)
    .map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  await applyAll(operator, [
    ...namespaces,
    ...manifestObjects().filter((o) => o.metadata.namespace !== templateNamespace),
    ...baselineAccess(templateNamespace),
    kubectlBinding,
  ]);
}
