// Field ownership (metadata.managedFields, FieldsV1 format) and server-side apply.
//
// A field set is a set of paths; a path is a list of FieldsV1 tokens: `f:<field>`, `k:<json key>`
// for an item of a keyed list, `v:<json value>` for an item of a set. A path ending in a `k:` or
// `v:` token owns the list item itself (the `.` entry in FieldsV1).

import { ApiError } from '../errors.ts';
import { clone, deepEqual, isObject } from '../json.ts';
import type { KubeObject, ManagedFieldsEntry } from '../types.ts';
import { applyKeyOf, listType } from './list-types.ts';

type FieldSet = Set<string>;
const SEP = '\u0001';

const IGNORED_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
  'generateName',
]);

export interface FieldContext {
  builtin: boolean;
  apiVersion: string;
  now: string;
}

function fieldNames(tokens: readonly string[]): string[] {
  return tokens.filter((t) => t.startsWith('f:')).map((t) => t.slice(2));
}

/**
 * Every owned path of `object`: the `status` subtree alone for status-subresource writes,
 * everything else otherwise, as the API server tracks the two separately.
 */
export function fieldSet(object: unknown, builtin: boolean, statusOnly: boolean): FieldSet {
  const out: FieldSet = new Set();
  if (!isObject(object)) return out;
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind' || value === undefined) continue;
    if ((key === 'status') !== statusOnly) continue;
    if (key === 'metadata' && isObject(value)) {
      for (const [mk, mv] of Object.entries(value)) {
        if (IGNORED_METADATA.has(mk) || mv === undefined) continue;
        walk(mv, ['f:metadata', `f:${mk}`], builtin, out);
      }
      continue;
    }
    walk(value, [`f:${key}`], builtin, out);
  }
  return out;
}

function walk(value: unknown, tokens: string[], builtin: boolean, out: FieldSet): void {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value))
      if (v !== undefined) walk(v, [...tokens, `f:${k}`], builtin, out);
    return;
  }
  if (Array.isArray(value) && value.length > 0) {
    const lt = listType(builtin, fieldNames(tokens));
    if (lt.type === 'map') {
      const keyed = value.map((item) => applyKeyOf(item, lt.applyKeys));
      if (keyed.every((k) => k !== undefined)) {
        value.forEach((item, i) => {
          const itemTokens = [...tokens, `k:${JSON.stringify(keyed[i])}`];
          out.add(itemTokens.join(SEP));
          for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
            if (v !== undefined) walk(v, [...itemTokens, `f:${k}`], builtin, out);
          }
        });
        return;
      }
    } else if (lt.type === 'set') {
      for (const item of value) out.add([...tokens, `v:${JSON.stringify(item)}`].join(SEP));
      return;
    }
  }
  out.add(tokens.join(SEP));
}

function step(current: unknown, token: string): unknown {
  if (token.startsWith('f:')) return isObject(current) ? current[token.slice(2)] : undefined;
  if (!Array.isArray(current)) return undefined;
  if (token.startsWith('v:')) {
    const wanted = JSON.parse(token.slice(2)) as unknown;
    return current.find((item) => deepEqual(item, wanted));
  }
  if (token.startsWith('k:')) {
    const key = JSON.parse(token.slice(2)) as Record<string, unknown>;
    const keys = Object.keys(key);
    return current.find((item) => deepEqual(applyKeyOf(item, keys), key));
  }
  return undefined;
}

function valueAt(object: unknown, path: string): unknown {
  let current = object;
  for (const token of path.split(SEP)) {
    current = step(current, token);
    if (current === undefined) return undefined;
  }
  return current;
}

function removeAt(object: unknown, path: string): void {
  const tokens = path.split(SEP);
  const last = tokens.pop();
  if (last === undefined) return;
  let current = object;
  for (const token of tokens) {
    current = step(current, token);
    if (current === undefined) return;
  }
  if (last.startsWith('f:')) {
    if (isObject(current)) delete current[last.slice(2)];
    return;
  }
  if (Array.isArray(current)) {
    const item = step(current, last);
    const i = current.indexOf(item);
    if (item !== undefined && i >= 0) current.splice(i, 1);
  }
}

export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const owned: Record<string, unknown>[] = [];
  for (const path of set) {
    let node = root;
    for (const token of path.split(SEP)) {
      let child = node[token] as Record<string, unknown> | undefined;
      if (!child) {
        child = {};
        node[token] = child;
      }
      node = child;
    }
    owned.push(node);
  }
  for (const node of owned) if (Object.keys(node).length > 0 && !('.' in node)) node['.'] = {};
  return root;
}

// Stored managedFields are frozen and shared, so their parsed form can be cached by identity.
const parsed = new WeakMap<object, FieldSet>();

export function fromFieldsV1(tree: unknown): FieldSet {
  if (isObject(tree) && Object.isFrozen(tree)) {
    const cached = parsed.get(tree);
    if (cached) return new Set(cached);
    const fresh = parseFieldsV1(tree);
    parsed.set(tree, fresh);
    return new Set(fresh);
  }
  return parseFieldsV1(tree);
}

function parseFieldsV1(tree: unknown): FieldSet {
  const out: FieldSet = new Set();
  const visit = (node: unknown, tokens: string[]): void => {
    if (!isObject(node)) return;
    const keys = Object.keys(node);
    if (tokens.length > 0 && (keys.length === 0 || keys.includes('.'))) out.add(tokens.join(SEP));
    for (const key of keys) if (key !== '.') visit(node[key], [...tokens, key]);
  };
  visit(tree, []);
  return out;
}

/** `.spec.replicas`, `.spec.template.spec.containers[name="web"].image`: how conflicts are reported. */
function describePath(path: string): string {
  return path
    .split(SEP)
    .map((t) => {
      if (t.startsWith('f:')) return `.${t.slice(2)}`;
      if (t.startsWith('k:')) {
        const key = JSON.parse(t.slice(2)) as Record<string, unknown>;
        return `[${Object.entries(key)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
      }
      return `[=${t.slice(2)}]`;
    })
    .join('');
}

function isSameEntry(
  e: ManagedFieldsEntry,
  manager: string,
  operation: string,
  subresource: string | undefined,
): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '');
}

function isItemPath(path: string): boolean {
  const last = path.slice(path.lastIndexOf(SEP) + 1);
  return last.startsWith('k:') || last.startsWith('v:');
}

/** A key field of a list item (`name` in `k:{"name":…}`) goes only with the item itself. */
function isItemKeyField(path: string): boolean {
  const tokens = path.split(SEP);
  const last = tokens[tokens.length - 1] ?? '';
  const parent = tokens[tokens.length - 2] ?? '';
  if (!last.startsWith('f:') || !parent.startsWith('k:')) return false;
  return Object.hasOwn(JSON.parse(parent.slice(2)) as Record<string, unknown>, last.slice(2));
}

function ownsWithin(set: FieldSet, path: string): boolean {
  if (set.has(path)) return true;
  const prefix = path + SEP;
  for (const p of set) if (p.startsWith(prefix)) return true;
  return false;
}

function finish(
  entries: { entry: ManagedFieldsEntry; set: FieldSet; changed: boolean }[],
  ctx: FieldContext,
): ManagedFieldsEntry[] {
  return entries
    .filter((e) => e.set.size > 0)
    .map((e) => ({
      ...e.entry,
      ...(e.changed ? { time: ctx.now, apiVersion: ctx.apiVersion } : {}),
      fieldsV1: e.changed ? toFieldsV1(e.set) : e.entry.fieldsV1,
    }));
}

/**
 * Ownership after a create, update or non-apply patch: the writer takes every field whose value it
 * changed; other managers lose those fields and any removed ones.
 */
export function trackUpdate(
  previous: KubeObject | undefined,
  next: KubeObject,
  manager: string,
  subresource: string | undefined,
  ctx: FieldContext,
): ManagedFieldsEntry[] {
  const statusOnly = subresource === 'status';
  const before = previous ? fieldSet(previous, ctx.builtin, statusOnly) : new Set<string>();
  const after = fieldSet(next, ctx.builtin, statusOnly);
  const changed: string[] = [];
  for (const path of after) {
    if (!before.has(path)) changed.push(path);
    else if (!isItemPath(path) && !deepEqual(valueAt(previous, path), valueAt(next, path)))
      changed.push(path);
  }
  const removed = [...before].filter((p) => !after.has(p));
  const entries = (previous?.metadata.managedFields ?? []).map((entry) => ({
    entry,
    set: fromFieldsV1(entry.fieldsV1),
    changed: false,
  }));
  let mine = entries.find((e) => isSameEntry(e.entry, manager, 'Update', subresource));
  if (!mine && changed.length > 0) {
    mine = {
      entry: {
        manager,
        operation: 'Update',
        apiVersion: ctx.apiVersion,
        time: ctx.now,
        fieldsType: 'FieldsV1',
        fieldsV1: {},
        ...(subresource ? { subresource } : {}),
      },
      set: new Set(),
      changed: true,
    };
    entries.push(mine);
  }
  for (const e of entries) {
    for (const path of [...changed, ...removed]) {
      if (e !== mine && e.set.delete(path)) e.changed = true;
    }
  }
  if (mine) {
    for (const path of removed) if (mine.set.delete(path)) mine.changed = true;
    for (const path of changed) {
      if (!mine.set.has(path)) {
        mine.set.add(path);
        mine.changed = true;
      }
    }
  }
  return finish(entries, ctx);
}

export interface ApplyResult {
  object: KubeObject;
  managedFields: ManagedFieldsEntry[];
}

interface ApplyConflict {
  manager: string;
  path: string;
}

class ApplyConflictError extends ApiError {
  constructor(conflicts: ApplyConflict[], apiVersion: string) {
    const lines = conflicts.map(
      (c) => `conflict with "${c.manager}" using ${apiVersion}: ${describePath(c.path)}`,
    );
    const message =
      conflicts.length === 1
        ? `Apply failed with 1 conflict: ${lines[0]}`
        : `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
    super(409, 'Conflict', message, {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with "${c.manager}" using ${apiVersion}`,
        field: describePath(c.path),
      })),
    });
  }
}

function ssaMerge(live: unknown, config: unknown, path: readonly string[], builtin: boolean): unknown {
  if (isObject(config)) {
    const result: Record<string, unknown> = isObject(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(config)) {
      if (value === undefined) continue;
      result[key] = ssaMerge(result[key], value, [...path, key], builtin);
    }
    return result;
  }
  if (Array.isArray(config)) {
    const lt = listType(builtin, path);
    if (lt.type === 'map' && Array.isArray(live)) {
      const out = [...live];
      for (const item of config) {
        const key = applyKeyOf(item, lt.applyKeys);
        const i = key === undefined ? -1 : out.findIndex((o) => deepEqual(applyKeyOf(o, lt.applyKeys), key));
        if (i >= 0) out[i] = ssaMerge(out[i], item, path, builtin);
        else out.push(clone(item));
      }
      return out;
    }
    if (lt.type === 'set' && Array.isArray(live)) {
      const out = [...live];
      for (const item of config) if (!out.some((o) => deepEqual(o, item))) out.push(item);
      return out;
    }
    return clone(config);
  }
  return config;
}

/**
 * Server-side apply of `config` by `manager` onto `live` (absent when creating). Fields another
 * manager owns with a different value conflict unless `force`, which takes them over. Fields this
 * manager applied before and omits now are removed unless someone else also owns them.
 */
export function serverSideApply(
  live: KubeObject | undefined,
  config: KubeObject,
  manager: string,
  force: boolean,
  ctx: FieldContext,
): ApplyResult {
  const applied = fieldSet(config, ctx.builtin, false);
  const entries = (live?.metadata.managedFields ?? []).map((entry) => ({
    entry,
    set: fromFieldsV1(entry.fieldsV1),
    changed: false,
  }));
  const mine = entries.find((e) => isSameEntry(e.entry, manager, 'Apply', undefined));
  const conflicts: ApplyConflict[] = [];
  for (const e of entries) {
    if (e === mine || e.entry.subresource) continue;
    for (const path of applied) {
      if (isItemPath(path) || !e.set.has(path)) continue;
      if (deepEqual(valueAt(live, path), valueAt(config, path))) continue;
      if (force) {
        e.set.delete(path);
        e.changed = true;
      } else conflicts.push({ manager: e.entry.manager, path });
    }
  }
  if (conflicts.length > 0) throw new ApplyConflictError(conflicts, ctx.apiVersion);

  const { metadata: configMeta, status: _ignored, ...configRest } = config;
  const merged = ssaMerge(
    live ? clone(live) : { metadata: {} },
    { ...configRest, metadata: configMeta },
    [],
    ctx.builtin,
  ) as KubeObject;

  const previous = mine?.set ?? new Set<string>();
  // Shallow paths first: dropping a list item takes its fields with it.
  const dropped = [...previous]
    .filter((p) => !applied.has(p))
    .sort((a, b) => a.split(SEP).length - b.split(SEP).length);
  for (const path of dropped) {
    if (isItemKeyField(path)) continue;
    const sharedElsewhere = entries.some(
      (e) => e !== mine && (isItemPath(path) ? ownsWithin(e.set, path) : e.set.has(path)),
    );
    if (!sharedElsewhere) removeAt(merged, path);
  }

  const applyEntry = {
    entry: {
      manager,
      operation: 'Apply' as const,
      apiVersion: ctx.apiVersion,
      time: ctx.now,
      fieldsType: 'FieldsV1' as const,
      fieldsV1: {},
    },
    set: applied,
    changed: true,
  };
  const result = mine ? entries.map((e) => (e === mine ? applyEntry : e)) : [...entries, applyEntry];
  return { object: merged, managedFields: finish(result, ctx) };
}
