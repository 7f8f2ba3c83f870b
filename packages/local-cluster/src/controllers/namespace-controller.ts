// Namespace deletion: a Terminating namespace has its contents deleted, then goes itself.

import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import type { StoreEvent } from '../api/store.ts';
import { WorkQueue } from './work-queue.ts';

export class NamespaceController {
  private readonly api: Api;
  private readonly queue: WorkQueue;
  private readonly nsRt: ResourceType;
  private readonly unsubscribe: () => void;

  constructor(api: Api) {
    this.api = api;
    this.nsRt = api.rt('', 'namespaces');
    this.queue = new WorkQueue('namespace', (name) => this.sync(name));
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
    for (const ns of api.store.list(this.nsRt))
      if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name ?? '');
  }

  private onEvent(e: StoreEvent): void {
    if (e.rt.group === '' && e.rt.resource === 'namespaces') {
      if (e.object.metadata.deletionTimestamp && e.type !== 'DELETED')
        this.queue.add(e.object.metadata.name ?? '');
      return;
    }
    const namespace = e.object.metadata.namespace;
    if (e.type === 'DELETED' && namespace && e.rt.namespaced) {
      const ns = this.api.store.get(this.nsRt, undefined, namespace);
      if (ns?.metadata.deletionTimestamp) this.queue.add(namespace);
    }
  }

  private sync(name: string): void {
    const ns = this.api.store.get(this.nsRt, undefined, name);
    if (!ns?.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const rt of this.api.registry.all()) {
      if (!rt.namespaced) continue;
      for (const object of this.api.store.list(rt, name)) {
        remaining++;
        if (!object.metadata.deletionTimestamp) this.api.delete(rt, name, object.metadata.name ?? '');
      }
    }
    if (remaining > 0) return;
    const latest = this.api.store.get(this.nsRt, undefined, name);
    if (latest && (latest.metadata.finalizers ?? []).length === 0) this.api.store.remove(this.nsRt, latest);
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
