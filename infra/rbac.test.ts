/**
 * deploy/kubernetes/rbac.yaml against what the code does and what the access entries grant: each
 * function's group gets its own role, the rules the code's permissions list, bound in the
 * namespaces of the installation specification example (docs/installation.example.json); only the
 * worker's role writes.
 */
import { readFileSync } from 'node:fs';
import { Installation } from '@svc/core';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { clusterGroups } from './settings.ts';

interface RbacObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }[];
  subjects?: { kind: string; name: string; apiGroup: string }[];
  roleRef?: { kind: string; name: string };
}

const text = readFileSync('deploy/kubernetes/rbac.yaml', 'utf8');
const objects = YAML.parseAllDocuments(text)
  .map((document) => document.toJS() as RbacObject | null)
  .filter((o) => o !== null);
const example = JSON.parse(readFileSync('docs/installation.example.json', 'utf8')) as {
  targets: { baselines: string[]; gateway: { namespace: string; name: string } }[];
};

const named = (kind: string, name: string, namespace?: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace);
const groupOf = (binding: RbacObject | undefined) => binding?.subjects?.map((s) => `${s.kind}/${s.name}`);
const writes = ['create', 'update', 'patch', 'delete', 'deletecollection', '*'];

describe('deploy/kubernetes/rbac.yaml', () => {
  it("gives the worker's and the API's ClusterRoles exactly the rules the code's permissions list", () => {
    for (const identity of ['worker', 'api'] as const) {
      const name = Installation.clusterGroups[identity];
      expect(named('ClusterRole', name), name).toBeDefined();
      expect(text).toContain(`  name: ${name}\nrules:\n${Installation.rbacRules(identity)}\n---`);
    }
  });

  it('binds each role to its own group in every baseline namespace of the example, and there only', () => {
    const namespaces = example.targets.flatMap((t) => t.baselines);
    for (const identity of ['worker', 'api'] as const) {
      const name = Installation.clusterGroups[identity];
      const bindings = objects.filter((o) => o.kind === 'RoleBinding' && o.roleRef?.name === name);
      expect(bindings.map((b) => b.metadata.namespace)).toEqual(namespaces);
      for (const binding of bindings) {
        expect(binding.metadata.name).toBe(name);
        expect(binding.roleRef).toEqual({ kind: 'ClusterRole', name, apiGroup: 'rbac.authorization.k8s.io' });
        expect(groupOf(binding)).toEqual([`Group/${name}`]);
      }
      expect(objects.filter((o) => o.kind === 'ClusterRoleBinding' && o.roleRef?.name === name)).toEqual([]);
    }
  });

  it("lets the API read the example's Gateway, its GatewayClass, the Namespaces and the HTTPRoute definition", () => {
    const gateway = example.targets[0]?.gateway.namespace;
    const reader = named('Role', 'preview-composition-gateway-reader', gateway);
    expect(reader?.rules).toEqual([
      { apiGroups: ['gateway.networking.k8s.io'], resources: ['gateways'], verbs: ['get'] },
    ]);
    expect(groupOf(named('RoleBinding', 'preview-composition-gateway-reader', gateway))).toEqual([
      `Group/${clusterGroups.api}`,
    ]);
    expect(named('ClusterRole', 'preview-composition-installation-check')?.rules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
      { apiGroups: ['gateway.networking.k8s.io'], resources: ['gatewayclasses'], verbs: ['get'] },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['httproutes.gateway.networking.k8s.io'],
        verbs: ['get'],
      },
    ]);
    expect(groupOf(named('ClusterRoleBinding', 'preview-composition-installation-check'))).toEqual([
      `Group/${clusterGroups.api}`,
    ]);
  });

  it("lets the API get the KEDA HTTP add-on's interceptor Service, that one, in namespace keda", () => {
    expect(named('Role', 'preview-composition-interceptor-reader', 'keda')?.rules).toEqual([
      {
        apiGroups: [''],
        resources: ['services'],
        resourceNames: ['keda-add-ons-http-interceptor-proxy'],
        verbs: ['get'],
      },
    ]);
    expect(groupOf(named('RoleBinding', 'preview-composition-interceptor-reader', 'keda'))).toEqual([
      `Group/${clusterGroups.api}`,
    ]);
  });

  it('lets only the worker write, and binds nobody but the groups the access entries give', () => {
    const bound = objects.filter((o) => o.kind.endsWith('Binding'));
    for (const binding of bound) {
      const [subject] = binding.subjects ?? [];
      expect(binding.subjects).toHaveLength(1);
      expect(Object.values(clusterGroups)).toContain(subject?.name);
      const { kind = '', name = '' } = binding.roleRef ?? {};
      const role = named(kind, name, kind === 'Role' ? binding.metadata.namespace : undefined);
      expect(role, `${binding.kind} ${binding.metadata.name}`).toBeDefined();
      const writing = (role?.rules ?? []).filter((r) => r.verbs.some((verb) => writes.includes(verb)));
      if (subject?.name === clusterGroups.api) {
        expect(writing.map((r) => r.resources)).toEqual(
          binding.roleRef?.name === clusterGroups.api ? [['localsubjectaccessreviews']] : [],
        );
      }
    }
  });
});
