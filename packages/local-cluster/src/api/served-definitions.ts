// CustomResourceDefinitions for the Gateway API kinds this cluster serves itself. On a real cluster
// those kinds exist because their CRDs are installed, so `kubectl get crd` (and tools that look for
// the CRDs before using the kinds) should find them here too. They describe built-in behaviour, so
// clients may read them but not change or delete them.

import { forbidden } from './errors.ts';
import { gatewayApiTypes, type ResourceType } from './registry.ts';
import type { KubeObject } from './types.ts';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';

/** The definitions, one per Gateway API resource with each of its served versions. */
export function servedDefinitions(): KubeObject[] {
  const byName = new Map<string, ResourceType[]>();
  for (const rt of gatewayApiTypes()) {
    const name = `${rt.resource}.${rt.group}`;
    byName.set(name, [...(byName.get(name) ?? []), rt]);
  }
  return [...byName].map(([name, versions]) => definition(name, versions));
}

function definition(name: string, versions: ResourceType[]): KubeObject {
  const [first] = versions as [ResourceType];
  return {
    apiVersion: `${CRD_GROUP}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'local-cluster' } },
    spec: {
      group: first.group,
      names: {
        plural: first.resource,
        singular: first.singular,
        kind: first.kind,
        listKind: first.listKind,
        ...(first.shortNames.length > 0 ? { shortNames: [...first.shortNames] } : {}),
        categories: [...first.categories],
      },
      scope: first.namespaced ? 'Namespaced' : 'Cluster',
      versions: versions.map((rt, i) => ({
        name: rt.version,
        served: true,
        storage: i === 0,
        // The cluster stores these kinds without a schema, as it does every custom resource.
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        ...(rt.hasStatus ? { subresources: { status: {} } } : {}),
      })),
    },
  };
}

const servedNames = new Set(servedDefinitions().map((d) => d.metadata.name));

/** 403 when a client would change or delete one of the served definitions. */
export function refuseServedDefinitionWrite(rt: ResourceType, targets: () => readonly string[]): void {
  if (rt.group !== CRD_GROUP || rt.resource !== CRD_RESOURCE) return;
  const name = targets().find((n) => servedNames.has(n));
  if (name === undefined) return;
  throw forbidden(
    `${CRD_RESOURCE}.${CRD_GROUP} "${name}" is forbidden: this local cluster serves the Gateway API itself, so its CustomResourceDefinitions are read-only`,
    rt,
    name,
  );
}
