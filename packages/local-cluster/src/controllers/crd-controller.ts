// CustomResourceDefinitions: each served version becomes a resource type in discovery, stored
// generically; deleting the CRD deletes its objects.

import { isObject } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import type { StoreEvent } from '../api/store.ts';
import type { KubeObject } from '../api/types.ts';

interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  versions: { name: string; served?: boolean; subresources?: { status?: unknown; scale?: unknown } }[];
}

function specOf(crd: KubeObject): CrdSpec | undefined {
  const spec = crd.spec;
  if (
    !isObject(spec) ||
    typeof spec.group !== 'string' ||
    !isObject(spec.names) ||
    !Array.isArray(spec.versions)
  )
    return undefined;
  return spec as unknown as CrdSpec;
}

function crdTypes(crd: KubeObject): ResourceType[] {
  const spec = specOf(crd);
  if (!spec) return [];
  return spec.versions
    .filter((v) => v.served !== false)
    .map((v) => ({
      group: spec.group,
      version: v.name,
      resource: spec.names.plural,
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      namespaced: spec.scope !== 'Cluster',
      shortNames: spec.names.shortNames ?? [],
      categories: spec.names.categories ?? [],
      hasStatus: v.subresources?.status !== undefined,
      hasScale: false,
      builtin: false,
    }));
}

export class CrdController {
  private readonly api: Api;
  private readonly unsubscribe: () => void;

  constructor(api: Api) {
    this.api = api;
    const crds = api.rt('apiextensions.k8s.io', 'customresourcedefinitions');
    for (const crd of api.store.list(crds)) this.register(crd, false);
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
  }

  private onEvent(e: StoreEvent): void {
    if (e.rt.group !== 'apiextensions.k8s.io' || e.rt.resource !== 'customresourcedefinitions') return;
    if (e.type === 'DELETED') {
      const spec = specOf(e.object);
      if (!spec) return;
      const types = crdTypes(e.object);
      const first = types[0];
      if (first) for (const object of this.api.store.list(first)) this.api.store.remove(first, object);
      this.api.registry.remove(spec.group, spec.names.plural);
      return;
    }
    this.register(e.object, false);
    setImmediate(() => this.register(e.object, true));
  }

  private register(crd: KubeObject, writeStatus: boolean): void {
    for (const rt of crdTypes(crd)) {
      this.api.registry.add(rt);
      this.api.store.registerType(rt);
    }
    const spec = specOf(crd);
    if (!writeStatus || !spec) return;
    const latest = this.api.tryGet(
      this.api.rt('apiextensions.k8s.io', 'customresourcedefinitions'),
      undefined,
      crd.metadata.name ?? '',
    );
    if (!latest || latest.metadata.deletionTimestamp) return;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const previous =
      isObject(latest.status) && Array.isArray(latest.status.conditions)
        ? (latest.status.conditions as { type: string; lastTransitionTime?: string }[])
        : [];
    const condition = (type: string, reason: string, message: string) => ({
      type,
      status: 'True',
      lastTransitionTime: previous.find((c) => c.type === type)?.lastTransitionTime ?? now,
      reason,
      message,
    });
    this.api.writeStatus(
      this.api.rt('apiextensions.k8s.io', 'customresourcedefinitions'),
      latest,
      {
        conditions: [
          condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
          condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
        ],
        acceptedNames: spec.names,
        storedVersions: spec.versions.filter((v) => v.served !== false).map((v) => v.name),
      },
      'apiextensions-apiserver',
    );
  }

  stop(): void {
    this.unsubscribe();
  }
}
