// In-memory object storage with one global resourceVersion counter, a bounded history of changes
// for watch resumption, and indexes by uid, by owner and by label. Stored objects are frozen and
// replaced, never mutated, so they can be handed to watchers and controllers without copying.

import { deepFreeze } from './json.ts';
import { type ResourceType, storageKey } from './registry.ts';
import type { Requirement } from './selectors.ts';
import { addTo, removeFrom } from './set-map.ts';
import type { KubeObject } from './types.ts';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: EventType;
  rt: ResourceType;
  object: KubeObject;
  previous: KubeObject | undefined;
  rv: number;
}

export type StoreListener = (event: StoreEvent) => void;

export interface Snapshot {
  version: 1;
  resourceVersion: number;
  resources: Record<string, KubeObject[]>;
}

/** Objects in key order, with their keys beside them for binary search. */
interface SortedView {
  keys: string[];
  objects: KubeObject[];
}

interface Partition {
  keys: Set<string>;
  sorted: SortedView | undefined;
}

interface Table {
  objects: Map<string, KubeObject>;
  sorted: SortedView | undefined;
  /** Keys per namespace, so a namespaced list touches only its own namespace. */
  namespaces: Map<string, Partition>;
  /** Keys per `label=value`, so a selector naming a label reads its matches, not the namespace. */
  labels: Map<string, Set<string>>;
}

interface Located {
  table: string;
  key: string;
}

function sortedView(entries: [string, KubeObject][]): SortedView {
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { keys: entries.map((e) => e[0]), objects: entries.map((e) => e[1]) };
}

/** Where `key` is in `keys` (sorted), or where it would go. */
function position(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((keys[middle] as string) < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The view with `key` holding `next`, or without it. An object that comes or goes makes a new
 * array (a caller may be iterating the old one while it writes); re-sorting a namespace of
 * thousands after every create cost more than the create.
 */
function updated(view: SortedView, key: string, next: KubeObject | undefined): SortedView {
  const i = position(view.keys, key);
  const present = view.keys[i] === key;
  if (next && present) {
    view.objects[i] = next;
    return view;
  }
  if (next) return { keys: view.keys.toSpliced(i, 0, key), objects: view.objects.toSpliced(i, 0, next) };
  if (present) return { keys: view.keys.toSpliced(i, 1), objects: view.objects.toSpliced(i, 1) };
  return view;
}

const labelEntries = (object: KubeObject | undefined): string[] =>
  Object.entries(object?.metadata.labels ?? {}).map(([key, value]) => `${key}=${value}`);

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  private rv = 0;
  private readonly tables = new Map<string, Table>();
  private readonly uids = new Map<string, Located>();
  private readonly owners = new Map<string, Set<string>>();
  private readonly history: StoreEvent[] = [];
  private historyStart = 0;
  private oldestRv = 1;
  private readonly listeners = new Set<StoreListener>();
  private readonly types = new Map<string, ResourceType>();
  private readonly historyLimit: number;

  constructor(historyLimit = 10_000) {
    this.historyLimit = historyLimit;
  }

  currentRv(): number {
    return this.rv;
  }

  /** The resourceVersion the next write will get; lets a write be validated before it commits. */
  nextRv(): number {
    return this.rv + 1;
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private table(key: string): Table {
    let t = this.tables.get(key);
    if (!t) {
      t = { objects: new Map(), sorted: undefined, namespaces: new Map(), labels: new Map() };
      this.tables.set(key, t);
    }
    return t;
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.tables
      .get(storageKey(rt))
      ?.objects.get(objectKey(rt.namespaced ? namespace : undefined, name));
  }

  /** Objects sorted by namespace then name, as etcd keys sort. */
  list(rt: ResourceType, namespace?: string): readonly KubeObject[] {
    const t = this.tables.get(storageKey(rt));
    if (!t) return [];
    if (namespace === undefined || !rt.namespaced) {
      t.sorted ??= sortedView([...t.objects.entries()]);
      return t.sorted.objects;
    }
    const p = t.namespaces.get(namespace);
    if (!p) return [];
    p.sorted ??= sortedView([...p.keys].map((k) => [k, t.objects.get(k) as KubeObject]));
    return p.sorted.objects;
  }

  /**
   * What may match `requirements`, in key order: the objects carrying the label of the most
   * selective equality requirement (from the label index) when there is one, else the whole list.
   * Callers still match every requirement; the index only spares them objects that cannot match.
   */
  candidates(
    rt: ResourceType,
    namespace: string | undefined,
    requirements: readonly Requirement[],
  ): readonly KubeObject[] {
    const t = this.tables.get(storageKey(rt));
    const sets = requirements.flatMap((r) =>
      r.op === 'in' && r.values.length === 1
        ? [t?.labels.get(`${r.key}=${r.values[0]}`) ?? new Set<string>()]
        : [],
    );
    if (!t || sets.length === 0) return this.list(rt, namespace);
    const smallest = sets.reduce((a, b) => (b.size < a.size ? b : a));
    const prefix = namespace === undefined || !rt.namespaced ? '' : `${namespace}/`;
    const keys = [...smallest].filter((key) => key.startsWith(prefix)).sort();
    return keys.map((key) => t.objects.get(key) as KubeObject);
  }

  count(rt: ResourceType): number {
    return this.tables.get(storageKey(rt))?.objects.size ?? 0;
  }

  byUid(uid: string): { rt: ResourceType; object: KubeObject } | undefined {
    const at = this.uids.get(uid);
    if (!at) return undefined;
    const rt = this.types.get(at.table);
    const object = this.tables.get(at.table)?.objects.get(at.key);
    return rt && object ? { rt, object } : undefined;
  }

  /** Objects naming `ownerUid` in their ownerReferences. */
  dependents(ownerUid: string): { rt: ResourceType; object: KubeObject }[] {
    const out: { rt: ResourceType; object: KubeObject }[] = [];
    for (const uid of this.owners.get(ownerUid) ?? []) {
      const found = this.byUid(uid);
      if (found) out.push(found);
    }
    return out;
  }

  /** Writes `object` (ADDED if new, else MODIFIED) with the next resourceVersion. */
  put(rt: ResourceType, object: KubeObject): KubeObject {
    const tableKey = storageKey(rt);
    const t = this.table(tableKey);
    const key = objectKey(rt.namespaced ? object.metadata.namespace : undefined, object.metadata.name ?? '');
    const previous = t.objects.get(key);
    const rv = ++this.rv;
    const stored = deepFreeze({ ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } });
    t.objects.set(key, stored);
    this.partition(t, object.metadata.namespace, key, previous, stored);
    this.label(t, key, previous, stored);
    this.types.set(tableKey, rt);
    this.index(previous, stored, tableKey, key);
    this.emit({ type: previous ? 'MODIFIED' : 'ADDED', rt, object: stored, previous, rv });
    return stored;
  }

  remove(rt: ResourceType, object: KubeObject): KubeObject | undefined {
    const tableKey = storageKey(rt);
    const t = this.tables.get(tableKey);
    const key = objectKey(rt.namespaced ? object.metadata.namespace : undefined, object.metadata.name ?? '');
    const previous = t?.objects.get(key);
    if (!t || !previous) return undefined;
    const rv = ++this.rv;
    const stored = deepFreeze({
      ...previous,
      metadata: { ...previous.metadata, resourceVersion: String(rv) },
    });
    t.objects.delete(key);
    this.partition(t, previous.metadata.namespace, key, previous, undefined);
    this.label(t, key, previous, undefined);
    this.index(previous, undefined, tableKey, key);
    this.emit({ type: 'DELETED', rt, object: stored, previous, rv });
    return stored;
  }

  /** Keeps the sorted views in step: an object is swapped in, added or removed by binary search. */
  private partition(
    t: Table,
    namespace: string | undefined,
    key: string,
    previous: KubeObject | undefined,
    next: KubeObject | undefined,
  ): void {
    if (namespace !== undefined) {
      let p = t.namespaces.get(namespace);
      if (!p) {
        p = { keys: new Set(), sorted: undefined };
        t.namespaces.set(namespace, p);
      }
      if (next) p.keys.add(key);
      else p.keys.delete(key);
      if (p.sorted) p.sorted = updated(p.sorted, key, next);
    }
    if (t.sorted && (previous || next)) t.sorted = updated(t.sorted, key, next);
  }

  /** Keeps the label index in step with the labels an object gained and lost. */
  private label(t: Table, key: string, previous: KubeObject | undefined, next: KubeObject | undefined): void {
    const before = labelEntries(previous);
    const after = labelEntries(next);
    for (const entry of before) if (!after.includes(entry)) removeFrom(t.labels, entry, key);
    for (const entry of after) addTo(t.labels, entry, key);
  }

  private index(
    previous: KubeObject | undefined,
    next: KubeObject | undefined,
    table: string,
    key: string,
  ): void {
    const uid = (next ?? previous)?.metadata.uid;
    if (!uid) return;
    if (next) this.uids.set(uid, { table, key });
    else this.uids.delete(uid);
    for (const ref of previous?.metadata.ownerReferences ?? []) removeFrom(this.owners, ref.uid, uid);
    for (const ref of next?.metadata.ownerReferences ?? []) addTo(this.owners, ref.uid, uid);
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historyLimit) {
      this.historyStart++;
      if (this.historyStart > 4096) {
        this.history.splice(0, this.historyStart);
        this.historyStart = 0;
      }
    }
    const first = this.history[this.historyStart];
    this.oldestRv = first ? first.rv : this.rv + 1;
    for (const listener of this.listeners) listener(event);
  }

  /** Changes after `rv`, or undefined when some of them are no longer retained. */
  eventsSince(rv: number): StoreEvent[] | undefined {
    if (rv >= this.rv) return [];
    if (rv < this.oldestRv - 1) return undefined;
    const out: StoreEvent[] = [];
    for (let i = this.historyStart; i < this.history.length; i++) {
      const e = this.history[i];
      if (e && e.rv > rv) out.push(e);
    }
    return out;
  }

  oldestRetainedRv(): number {
    return this.oldestRv;
  }

  /** Forgets the change history, as etcd compaction does: older watches must relist (410 Gone). */
  compact(): void {
    this.history.length = 0;
    this.historyStart = 0;
    this.oldestRv = this.rv + 1;
  }

  snapshot(): Snapshot {
    const resources: Record<string, KubeObject[]> = {};
    for (const [key, t] of this.tables) if (t.objects.size > 0) resources[key] = [...t.objects.values()];
    return { version: 1, resourceVersion: this.rv, resources };
  }

  /** Loads a snapshot into an empty store; the change history starts empty (older watches get 410). */
  restore(snapshot: Snapshot, resolve: (table: string) => ResourceType | undefined): void {
    this.rv = snapshot.resourceVersion;
    this.oldestRv = this.rv + 1;
    for (const [tableKey, objects] of Object.entries(snapshot.resources)) {
      const t = this.table(tableKey);
      const rt = resolve(tableKey);
      if (rt) this.types.set(tableKey, rt);
      for (const object of objects) {
        const key = objectKey(object.metadata.namespace, object.metadata.name ?? '');
        const stored = deepFreeze(object);
        t.objects.set(key, stored);
        this.partition(t, object.metadata.namespace, key, undefined, stored);
        this.label(t, key, undefined, stored);
        this.index(undefined, stored, tableKey, key);
      }
    }
  }

  /** Registers a type added after a restore (a CRD's), so uid lookups can name it. */
  registerType(rt: ResourceType): void {
    this.types.set(storageKey(rt), rt);
  }
}
