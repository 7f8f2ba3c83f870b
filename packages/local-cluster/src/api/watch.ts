// Watch streams: replay from the change history after a resourceVersion (or the current state),
// then live events, with selector transitions reported as ADDED/DELETED like a real API server.

import { gone } from './errors.ts';
import { groupVersion, type ResourceType, storageKey } from './registry.ts';
import { fieldMatcher, parseLabelSelector, requirementsMatcher } from './selectors.ts';
import type { Store, StoreEvent } from './store.ts';
import type { KubeObject } from './types.ts';

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

interface WatchEvent {
  type: WatchEventType;
  object: unknown;
}

export interface WatchSpec {
  rt: ResourceType;
  namespace?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  resourceVersion?: string | undefined;
  allowBookmarks?: boolean | undefined;
  sendInitialEvents?: boolean | undefined;
  timeoutSeconds?: number | undefined;
}

export interface WatchSink {
  send(event: WatchEvent): void;
  end(): void;
}

interface Watcher {
  spec: WatchSpec;
  table: string;
  matches: (object: KubeObject | undefined) => boolean;
  sink: WatchSink;
  timers: NodeJS.Timeout[];
  closed: boolean;
}

export class WatchHub {
  private readonly store: Store;
  private readonly watchers = new Set<Watcher>();
  private readonly bookmarkIntervalMs: number;
  private readonly unsubscribe: () => void;

  constructor(store: Store, bookmarkIntervalMs: number) {
    this.store = store;
    this.bookmarkIntervalMs = bookmarkIntervalMs;
    this.unsubscribe = store.subscribe((event) => this.dispatch(event));
  }

  /** Starts a watch. Selector errors throw before anything is streamed. */
  open(spec: WatchSpec, sink: WatchSink): () => void {
    const requirements = parseLabelSelector(spec.labelSelector ?? '');
    const matchLabels = requirementsMatcher(requirements);
    const matchFields = fieldMatcher(spec.fieldSelector);
    const rt = spec.rt;
    const matches = (object: KubeObject | undefined): boolean =>
      object !== undefined &&
      (!rt.namespaced || spec.namespace === undefined || object.metadata.namespace === spec.namespace) &&
      matchLabels(object.metadata.labels) &&
      matchFields(object);
    const watcher: Watcher = { spec, table: storageKey(rt), matches, sink, timers: [], closed: false };

    const rv = spec.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') {
      for (const object of this.store.candidates(rt, spec.namespace, requirements)) {
        if (matches(object)) sink.send({ type: 'ADDED', object });
      }
      if (spec.sendInitialEvents && spec.allowBookmarks) {
        sink.send({ type: 'BOOKMARK', object: this.bookmark(rt, { 'k8s.io/initial-events-end': 'true' }) });
      }
    } else {
      const from = Number(rv);
      const history = Number.isFinite(from) ? this.store.eventsSince(from) : undefined;
      if (!history) {
        const error = gone(`too old resource version: ${rv} (${this.store.oldestRetainedRv() - 1})`);
        sink.send({ type: 'ERROR', object: error.toStatus() });
        sink.end();
        return () => {};
      }
      for (const event of history) this.deliver(watcher, event);
    }

    this.watchers.add(watcher);
    if (spec.allowBookmarks && this.bookmarkIntervalMs > 0) {
      const t = setInterval(
        () => sink.send({ type: 'BOOKMARK', object: this.bookmark(rt) }),
        this.bookmarkIntervalMs,
      );
      t.unref();
      watcher.timers.push(t);
    }
    if (spec.timeoutSeconds !== undefined && spec.timeoutSeconds > 0) {
      const t = setTimeout(() => this.close(watcher), spec.timeoutSeconds * 1000);
      t.unref();
      watcher.timers.push(t);
    }
    return () => this.close(watcher, false);
  }

  private bookmark(rt: ResourceType, annotations?: Record<string, string>): KubeObject {
    return {
      kind: rt.kind,
      apiVersion: groupVersion(rt),
      metadata: { resourceVersion: String(this.store.currentRv()), ...(annotations ? { annotations } : {}) },
    };
  }

  private dispatch(event: StoreEvent): void {
    const table = storageKey(event.rt);
    for (const watcher of this.watchers) if (watcher.table === table) this.deliver(watcher, event);
  }

  private deliver(watcher: Watcher, event: StoreEvent): void {
    if (watcher.table !== storageKey(event.rt)) return;
    const now = event.type === 'DELETED' ? undefined : event.object;
    const before = event.type === 'ADDED' ? undefined : event.previous;
    const wasIn = watcher.matches(before);
    const isIn = watcher.matches(now);
    if (event.type === 'DELETED') {
      if (wasIn) watcher.sink.send({ type: 'DELETED', object: event.object });
    } else if (isIn) {
      watcher.sink.send({ type: wasIn ? 'MODIFIED' : 'ADDED', object: event.object });
    } else if (wasIn) {
      watcher.sink.send({ type: 'DELETED', object: event.object });
    }
  }

  private close(watcher: Watcher, endSink = true): void {
    if (watcher.closed) return;
    watcher.closed = true;
    for (const t of watcher.timers) clearTimeout(t);
    this.watchers.delete(watcher);
    if (endSink) watcher.sink.end();
  }

  /** Ends open watches (all, or those on one resource); clients see the stream close and must rewatch. */
  closeAll(resource?: string): number {
    let n = 0;
    for (const watcher of [...this.watchers]) {
      if (resource === undefined || watcher.spec.rt.resource === resource) {
        this.close(watcher);
        n++;
      }
    }
    return n;
  }

  count(): number {
    return this.watchers.size;
  }

  stop(): void {
    this.closeAll();
    this.unsubscribe();
  }
}
