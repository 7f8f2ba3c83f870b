// Owner-reference helpers shared by the workload controllers.

import { groupVersion, type ResourceType } from '../api/registry.ts';
import type { KubeObject, OwnerReference, Pod } from '../api/types.ts';

export function controllerRef(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function ownerRefTo(rt: ResourceType, owner: KubeObject): OwnerReference {
  return {
    apiVersion: groupVersion(rt),
    kind: rt.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function nsKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** When the pod last became Ready, for minReadySeconds. */
export function readySince(pod: Pod): number | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True');
  const t = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
}

export function isPodActive(pod: Pod): boolean {
  return (
    !pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed'
  );
}

/** Kubernetes serialises these counters with `omitempty`: a zero is absent, not 0. */
export function omitZero<T extends Record<string, number>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== 0) (out as Record<string, number>)[k] = v;
  return out;
}
