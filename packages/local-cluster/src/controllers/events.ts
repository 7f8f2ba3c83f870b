// Records core/v1 Events the way the kubelet and controllers do, counting repeats of the same
// event instead of creating a new object each time.

import { randomUUID } from 'node:crypto';
import { metaTime } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import { groupVersion, type ResourceType } from '../api/registry.ts';
import type { KubeObject } from '../api/types.ts';

export type EventKind = 'Normal' | 'Warning';

const EVENT_TTL_MS = 60 * 60 * 1000;

export class EventRecorder {
  private readonly api: Api;
  private readonly seen = new Map<string, string>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(api: Api) {
    this.api = api;
    // Events expire after an hour, as with the API server's default --event-ttl.
    this.sweeper = setInterval(() => this.expire(), 10 * 60 * 1000);
    this.sweeper.unref();
  }

  record(
    rt: ResourceType,
    object: KubeObject,
    type: EventKind,
    reason: string,
    message: string,
    component: string,
    fieldPath?: string,
  ): void {
    const namespace = object.metadata.namespace ?? 'default';
    const uid = object.metadata.uid ?? '';
    const key = `${uid}\u0000${reason}\u0000${message}`;
    const events = this.api.rt('', 'events');
    const now = metaTime();
    try {
      const existingName = this.seen.get(key);
      const existing = existingName ? this.api.tryGet(events, namespace, existingName) : undefined;
      if (existing) {
        this.api.update(
          events,
          namespace,
          existingName ?? '',
          { ...existing, count: Number(existing.count ?? 1) + 1, lastTimestamp: now },
          { fieldManager: component },
        );
        return;
      }
      const name = `${object.metadata.name ?? 'object'}.${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      this.api.create(
        events,
        namespace,
        {
          metadata: { name, namespace },
          involvedObject: {
            kind: rt.kind,
            namespace: object.metadata.namespace,
            name: object.metadata.name,
            uid,
            apiVersion: groupVersion(rt),
            resourceVersion: object.metadata.resourceVersion,
            ...(fieldPath ? { fieldPath } : {}),
          },
          reason,
          message,
          source: { component, ...(component === 'kubelet' ? { host: 'local-node' } : {}) },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          type,
          eventTime: null,
          reportingComponent: component,
          reportingInstance: component === 'kubelet' ? 'local-node' : '',
        },
        { fieldManager: component },
      );
      this.seen.set(key, name);
    } catch {
      // The namespace may be going away; an event that cannot be written is dropped, as on a real cluster.
    }
  }

  forget(uid: string): void {
    for (const key of this.seen.keys()) if (key.startsWith(`${uid}\u0000`)) this.seen.delete(key);
  }

  private expire(): void {
    const events = this.api.rt('', 'events');
    const cutoff = Date.now() - EVENT_TTL_MS;
    for (const event of this.api.store.list(events)) {
      const last = Date.parse(String(event.lastTimestamp ?? event.metadata.creationTimestamp ?? ''));
      if (Number.isFinite(last) && last < cutoff) {
        this.api.store.remove(events, event);
      }
    }
  }

  stop(): void {
    clearInterval(this.sweeper);
  }
}
