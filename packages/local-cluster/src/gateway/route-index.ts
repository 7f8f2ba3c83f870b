// Which HTTPRoutes name which Services and hostnames, kept in step with the store. A namespace of
// thousands of previews holds two routes per preview: the gateway answering a request and the
// route status reacting to a change read the routes concerned, not all of them.

import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import { addTo, removeFrom } from '../api/set-map.ts';
import type { StoreEvent } from '../api/store.ts';
import type { KubeObject } from '../api/types.ts';
import { nsKey, splitKey } from '../controllers/owners.ts';
import { asRoute, GATEWAY_GROUP, type HTTPRoute, isGatewayParent, isServiceParent } from './routes.ts';

/** Routes with no hostname or a wildcard one: candidates for any host. */
const anyHost = 'host:*';

/** The index entries of a route: its Service parents, every Service it names, its hostnames. */
function entriesOf(route: HTTPRoute): Set<string> {
  const namespace = route.metadata.namespace ?? 'default';
  const entries = new Set<string>();
  let gateway = false;
  for (const ref of route.spec.parentRefs ?? []) {
    if (isGatewayParent(ref)) {
      gateway = true;
      entries.add(`gateway:${ref.namespace ?? namespace}/${ref.name}/${ref.sectionName ?? ''}`);
    }
    if (!isServiceParent(ref)) continue;
    entries.add(`parent:${ref.namespace ?? namespace}/${ref.name}`);
    entries.add(`service:${ref.namespace ?? namespace}/${ref.name}`);
  }
  for (const rule of route.spec.rules ?? []) {
    for (const backend of rule.backendRefs ?? [])
      entries.add(`service:${backend.namespace ?? namespace}/${backend.name}`);
  }
  if (gateway) {
    const hostnames = route.spec.hostnames ?? [];
    if (hostnames.length === 0 || hostnames.some((h) => h.startsWith('*'))) entries.add(anyHost);
    for (const h of hostnames) if (!h.startsWith('*')) entries.add(`host:${h.toLowerCase()}`);
  }
  return entries;
}

export class RouteIndex {
  private readonly api: Api;
  private readonly routesRt: ResourceType;
  private readonly keys = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  constructor(api: Api) {
    this.api = api;
    this.routesRt = api.rt(GATEWAY_GROUP, 'httproutes');
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
    for (const route of api.store.list(this.routesRt)) this.update(undefined, route);
  }

  private onEvent(e: StoreEvent): void {
    if (e.rt.group !== GATEWAY_GROUP || e.rt.resource !== 'httproutes') return;
    this.update(e.previous, e.type === 'DELETED' ? undefined : e.object);
  }

  private update(previous: KubeObject | undefined, next: KubeObject | undefined): void {
    const key = nsKey((next ?? previous) as KubeObject);
    const after = next ? entriesOf(asRoute(next)) : new Set<string>();
    for (const entry of previous ? entriesOf(asRoute(previous)) : [])
      if (!after.has(entry)) removeFrom(this.keys, entry, key);
    for (const entry of after) addTo(this.keys, entry, key);
  }

  private routes(entries: readonly string[]): HTTPRoute[] {
    const keys = new Set(entries.flatMap((entry) => [...(this.keys.get(entry) ?? [])]));
    return [...keys].flatMap((key) => {
      const [namespace, name] = splitKey(key);
      const route = this.api.tryGet(this.routesRt, namespace, name);
      return route ? [asRoute(route)] : [];
    });
  }

  /** Routes with the Service `namespace/name` among their parents (GAMMA). */
  attachedTo(namespace: string, name: string): HTTPRoute[] {
    return this.routes([`parent:${namespace}/${name}`]);
  }

  /** Routes under a Gateway that may serve `hostname`: those naming it, and those with no or a wildcard hostname. */
  forHost(hostname: string): HTTPRoute[] {
    return this.routes([`host:${hostname}`, anyHost]);
  }

  /** How many routes attach to `listener` of the Gateway `namespace/name`: naming it, or no listener. */
  attachedCount(namespace: string, name: string, listener: string): number {
    const any = this.keys.get(`gateway:${namespace}/${name}/`) ?? new Set<string>();
    const named = [...(this.keys.get(`gateway:${namespace}/${name}/${listener}`) ?? [])];
    return any.size + named.filter((key) => !any.has(key)).length;
  }

  /** Keys (`namespace/name`) of the routes naming the Service `namespace/name`, as parent or backend. */
  naming(namespace: string, name: string): string[] {
    return [...(this.keys.get(`service:${namespace}/${name}`) ?? [])];
  }

  stop(): void {
    this.unsubscribe();
  }
}
