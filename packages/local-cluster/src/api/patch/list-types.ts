// How each list is merged: by key (containers by name, ports by port…), as a set, or as a whole.
// This is the slice of Kubernetes' OpenAPI patch metadata the resources here need. Only built-in
// types carry it; lists in other types are atomic, as in a CRD without list-type markers.

export type ListType =
  | { type: 'map'; patchKey: string; applyKeys: readonly string[] }
  | { type: 'set' }
  | { type: 'atomic' };

const ATOMIC: ListType = { type: 'atomic' };
const SET: ListType = { type: 'set' };
const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

function byKey(patchKey: string, applyKeys: readonly string[] = [patchKey]): ListType {
  return { type: 'map', patchKey, applyKeys };
}

/** `path` names the fields from the object's root to the list, without list indexes. */
export function listType(builtin: boolean, path: readonly string[]): ListType {
  const name = path[path.length - 1];
  const parent = path[path.length - 2];
  if (path.length === 2 && path[0] === 'metadata') {
    if (name === 'finalizers') return SET;
    if (name === 'ownerReferences') return byKey('uid');
  }
  if (!builtin) return ATOMIC;
  switch (name) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'volumes':
    case 'env':
    case 'imagePullSecrets':
    case 'resourceClaims':
    case 'schedulingGates':
      return byKey('name');
    case 'ports':
      return parent !== undefined && CONTAINER_LISTS.has(parent)
        ? byKey('containerPort', ['containerPort', 'protocol'])
        : byKey('port', ['port', 'protocol']);
    case 'volumeMounts':
      return byKey('mountPath');
    case 'volumeDevices':
      return byKey('devicePath');
    case 'conditions':
      return byKey('type');
    case 'hostAliases':
      return byKey('ip');
    case 'topologySpreadConstraints':
      return byKey('topologyKey', ['topologyKey', 'whenUnsatisfiable']);
    default:
      return ATOMIC;
  }
}

/** Server-side apply keys an item with defaults filled in, so `{containerPort: 80}` and `{containerPort: 80, protocol: TCP}` are one item. */
export function applyKeyOf(item: unknown, keys: readonly string[]): Record<string, unknown> | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const record = item as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = record[key] ?? (key === 'protocol' ? 'TCP' : undefined);
    if (value === undefined) return undefined;
    out[key] = value;
  }
  return out;
}
