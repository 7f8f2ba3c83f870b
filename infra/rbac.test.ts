/**
 * deploy/kubernetes/rbac.yaml against what the installation check reviews and what the access
 * entries grant: the same rules, bound to the group the functions' roles join, in the namespaces
 * of the installation specification example (docs/installation.example.json).
 */
import { readFileSync } from 'node:fs';
import { Installation } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { clusterGroup } from './settings.ts';

const manifests = readFileSync('deploy/kubernetes/rbac.yaml', 'utf8')
  .split(/^---$/m)
  .map((document) => document.replace(/^#.*\n/gm, '').trim())
  .filter((document) => document.length > 0);
const example = JSON.parse(readFileSync('docs/installation.example.json', 'utf8')) as {
  targets: { baselines: string[]; gateway: { namespace: string; name: string } }[];
};

const field = (document: string, name: string) => document.match(new RegExp(`^  ${name}: (.+)$`, 'm'))?.[1];
const ofKind = (kind: string) => manifests.filter((document) => document.includes(`\nkind: ${kind}\n`));

describe('deploy/kubernetes/rbac.yaml', () => {
  it('grants each baseline namespace of the example exactly what the permissions check reviews', () => {
    const roles = ofKind('Role').filter((role) => field(role, 'name') === 'preview-composition-service');
    const namespaces = roles.map((role) => field(role, 'namespace'));
    expect(namespaces).toEqual(example.targets.flatMap((t) => t.baselines));
    for (const role of roles) expect(role.endsWith(`rules:\n${Installation.rbacRules()}`)).toBe(true);
  });

  it("lets the check read the example's Gateway, its GatewayClass and the baseline Namespaces", () => {
    const reader = ofKind('Role').find((role) => role.includes('resources: ["gateways"]'));
    expect(field(reader ?? '', 'namespace')).toBe(example.targets[0]?.gateway.namespace);
    const clusterRole = ofKind('ClusterRole')[0] ?? '';
    expect(clusterRole).toContain('resources: ["namespaces"]\n    verbs: ["get"]');
    expect(clusterRole).toContain(
      'apiGroups: ["gateway.networking.k8s.io"]\n    resources: ["gatewayclasses"]\n    verbs: ["get"]',
    );
  });

  it('binds every role to the group the API and worker roles join, and nothing else', () => {
    const bindings = [...ofKind('RoleBinding'), ...ofKind('ClusterRoleBinding')];
    expect(bindings).toHaveLength(3);
    for (const binding of bindings) {
      expect(binding).toContain(`subjects:\n  - kind: Group\n    name: ${clusterGroup}\n`);
      expect(binding.match(/- kind:/g)).toHaveLength(1);
    }
  });
});
