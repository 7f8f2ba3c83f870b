// Strategic merge patch, as kubectl sends for `patch --type=strategic`, `set image` and client-side
// `apply`: lists with a merge key merge item by item, and the `$patch`, `$retainKeys`,
// `$setElementOrder/…` and `$deleteFromPrimitiveList/…` directives are honoured.

import { badRequest } from '../errors.ts';
import { clone, deepEqual, isObject } from '../json.ts';
import { listType } from './list-types.ts';

const SET_ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value))
    return value
      .filter((v) => !(isObject(v) && v.$patch !== undefined && Object.keys(v).length === 1))
      .map(stripDirectives);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) continue;
    out[k] = stripDirectives(v);
  }
  return out;
}

function mergeMap(original: unknown, patch: Record<string, unknown>, path: readonly string[]): unknown {
  const directive = patch.$patch;
  if (directive === 'replace') return stripDirectives(patch);
  if (directive === 'delete') return undefined;
  if (directive !== undefined && directive !== 'merge')
    throw badRequest(`unknown patch directive "${String(directive)}"`);
  const result: Record<string, unknown> = isObject(original) ? { ...original } : {};
  const orders: [string, unknown[]][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith(SET_ORDER)) {
      if (Array.isArray(value)) orders.push([key.slice(SET_ORDER.length), value]);
      continue;
    }
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[field] = current.filter((item) => !value.some((v) => deepEqual(v, item)));
      }
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const childPath = [...path, key];
    if (Array.isArray(value)) {
      result[key] = mergeList(result[key], value, childPath);
    } else if (isObject(value)) {
      const merged = mergeMap(result[key], value, childPath);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = value;
    }
  }
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  for (const [field, order] of orders) {
    const list = result[field];
    if (Array.isArray(list)) result[field] = reorder(list, order, [...path, field]);
  }
  return result;
}

function mergeList(original: unknown, patch: unknown[], path: readonly string[]): unknown[] {
  const lt = listType(true, path);
  const current = Array.isArray(original) ? original : [];
  if (lt.type === 'set') {
    const out = [...current];
    for (const item of patch) if (!out.some((o) => deepEqual(o, item))) out.push(item);
    return out;
  }
  if (lt.type === 'atomic' || !patch.every((p) => isObject(p))) return stripDirectives(patch) as unknown[];
  const key = lt.patchKey;
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return stripDirectives(patch.filter((p) => !(isObject(p) && p.$patch === 'replace'))) as unknown[];
  }
  const out: unknown[] = [...current];
  for (const item of patch as Record<string, unknown>[]) {
    const index = out.findIndex(
      (o) => isObject(o) && item[key] !== undefined && deepEqual(o[key], item[key]),
    );
    if (item.$patch === 'delete') {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0) {
      const merged = mergeMap(out[index], item, path);
      if (merged === undefined) out.splice(index, 1);
      else out[index] = merged;
    } else {
      out.push(stripDirectives(item));
    }
  }
  return out;
}

/** `$setElementOrder`: items named in the order come first, in that order; the rest keep theirs. */
function reorder(list: unknown[], order: unknown[], path: readonly string[]): unknown[] {
  const lt = listType(true, path);
  const key = lt.type === 'map' ? lt.patchKey : undefined;
  const identity = (item: unknown): unknown => (key !== undefined && isObject(item) ? item[key] : item);
  const wanted = order.map(identity);
  const ordered: unknown[] = [];
  for (const w of wanted) {
    const found = list.find((item) => deepEqual(identity(item), w));
    if (found !== undefined) ordered.push(found);
  }
  for (const item of list) if (!ordered.includes(item)) ordered.push(item);
  return ordered;
}

export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  return mergeMap(clone(target), patch, []) ?? {};
}
