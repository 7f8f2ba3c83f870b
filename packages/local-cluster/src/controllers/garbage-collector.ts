// Owner-reference garbage collection: dependents of a deleted owner are deleted (background), an
// owner deleted in the foreground goes after its dependents, an orphaning delete strips the owner
// reference from dependents first.

import { clone } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import type { StoreEvent } from '../api/store.ts';
import type { KubeObject } from '../api/types.ts';
import { WorkQueue } from './work-queue.ts';

const MANAGER = 'generic-garbage-collector';

export class GarbageCollector {
  private readonly api: Api;
  private readonly queue: WorkQueue;
  /** Owners whose dependents must be checked after the owner itself is gone. */
  private readonly deletedOwners = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(api: Api) {
    this.api = api;
    this.queue = new WorkQueue('garbage-collector', (uid) => this.sync(uid));
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
    for (const rt of api.registry.all()) {
      for (const object of api.store.list(rt)) {
        if (object.metadata.ownerReferences?.length || object.metadata.deletionTimestamp)
          this.queue.add(object.metadata.uid ?? '');
      }
    }
  }

  private onEvent(e: StoreEvent): void {
    const uid = e.object.metadata.uid;
    if (!uid) return;
    if (e.type === 'DELETED') {
      this.deletedOwners.add(uid);
      this.queue.add(uid);
      for (const ref of e.object.metadata.ownerReferences ?? []) this.queue.add(ref.uid);
      return;
    }
    if (e.object.metadata.deletionTimestamp) this.queue.add(uid);
    if (e.type === 'ADDED' && e.object.metadata.ownerReferences?.length) this.queue.add(uid);
  }

  private sync(uid: string): void {
    const found = this.api.store.byUid(uid);
    if (!found) {
      if (this.deletedOwners.delete(uid)) {
        for (const dep of this.api.store.dependents(uid)) this.queue.add(dep.object.metadata.uid ?? '');
      }
      return;
    }
    const { rt, object } = found;
    const finalizers = object.metadata.finalizers ?? [];
    if (object.metadata.deletionTimestamp && finalizers.includes('orphan')) {
      for (const dep of this.api.store.dependents(uid)) this.dropOwner(dep.rt, dep.object, uid);
      this.api.removeFinalizer(rt, object, 'orphan', MANAGER);
      return;
    }
    if (object.metadata.deletionTimestamp && finalizers.includes('foregroundDeletion')) {
      const dependents = this.api.store.dependents(uid);
      for (const dep of dependents) {
        if (dep.object.metadata.deletionTimestamp) continue;
        this.api.delete(dep.rt, dep.object.metadata.namespace, dep.object.metadata.name ?? '', {
          propagationPolicy: 'Foreground',
        });
      }
      const latest = this.api.store.byUid(uid);
      if (latest && this.api.store.dependents(uid).length === 0)
        this.api.removeFinalizer(rt, latest.object, 'foregroundDeletion', MANAGER);
      return;
    }
    const refs = object.metadata.ownerReferences ?? [];
    if (refs.length === 0 || object.metadata.deletionTimestamp) return;
    const live = refs.filter((r) => this.ownerExists(r.uid, object));
    if (live.length === 0) {
      const foreground = refs.some((r) =>
        this.api.store.byUid(r.uid)?.object.metadata.finalizers?.includes('foregroundDeletion'),
      );
      this.api.delete(rt, object.metadata.namespace, object.metadata.name ?? '', {
        propagationPolicy: foreground ? 'Foreground' : 'Background',
      });
    }
  }

  private ownerExists(uid: string, dependent: KubeObject): boolean {
    const owner = this.api.store.byUid(uid);
    if (!owner) return false;
    // A namespaced dependent can only be owned from its own namespace (or by a cluster-scoped owner).
    return !owner.rt.namespaced || owner.object.metadata.namespace === dependent.metadata.namespace;
  }

  private dropOwner(rt: StoreEvent['rt'], object: KubeObject, ownerUid: string): void {
    const next = clone(object);
    next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== ownerUid);
    if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
    this.api.update(rt, object.metadata.namespace, object.metadata.name ?? '', next, {
      fieldManager: MANAGER,
    });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
