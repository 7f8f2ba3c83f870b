// Status of the gateway objects this cluster serves: the GatewayClass `local`, Gateways of that
// class, and HTTPRoutes' `status.parents` with honest Accepted / ResolvedRefs conditions.

import { deepEqual, metaTime } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import type { StoreEvent } from '../api/store.ts';
import type { Condition, KubeObject } from '../api/types.ts';
import { nsKey, splitKey } from '../controllers/owners.ts';
import { WorkQueue } from '../controllers/work-queue.ts';
import { GATEWAY_CLASS } from './mesh.ts';
import type { RouteIndex } from './route-index.ts';
import {
  asRoute,
  GATEWAY_GROUP,
  type HTTPRoute,
  hostnameMatches,
  isGatewayParent,
  isServiceParent,
  type ParentRef,
  referenceGranted,
} from './routes.ts';

export const CONTROLLER_NAME = 'preview.local/gateway-controller';

/**
 * What the gateway implements, by Gateway API feature name (sorted, as the GatewayClass status
 * must be): Gateways, HTTPRoutes with their header filters, ReferenceGrants. No more: a name here
 * sends conformance tooling and the installation check's `gateway-features` to it.
 */
const SUPPORTED_FEATURES = ['Gateway', 'HTTPRoute', 'HTTPRouteResponseHeaderModification', 'ReferenceGrant'];
const MANAGER = 'preview-gateway';

/** Work queue keys: one route's status (`route:<namespace>/<name>`), the Gateways' and classes', or all. */
const routeKey = 'route:';
const gateways = 'gateways';
const everything = '*';

interface Listener {
  name: string;
  hostname?: string;
}

export class RouteStatusController {
  private readonly api: Api;
  private readonly queue: WorkQueue;
  private readonly routesRt: ResourceType;
  private readonly gatewaysRt: ResourceType;
  private readonly classesRt: ResourceType;
  private readonly servicesRt: ResourceType;
  private readonly grantsRt: ResourceType;
  private readonly unsubscribe: () => void;

  private readonly index: RouteIndex;

  constructor(api: Api, index: RouteIndex) {
    this.api = api;
    this.index = index;
    this.routesRt = api.rt(GATEWAY_GROUP, 'httproutes');
    this.gatewaysRt = api.rt(GATEWAY_GROUP, 'gateways');
    this.classesRt = api.rt(GATEWAY_GROUP, 'gatewayclasses');
    this.servicesRt = api.rt('', 'services');
    this.grantsRt = api.rt(GATEWAY_GROUP, 'referencegrants');
    this.queue = new WorkQueue('gateway-status', (key) => this.sync(key));
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
    this.queue.add(everything);
  }

  /**
   * What a change makes stale: a route's own status and the Gateways' attached counts; for a
   * Service that comes or goes, the routes naming it; for anything else of the gateway API, all.
   * Every route's status on every change cost O(routes) per preview created.
   */
  private onEvent(e: StoreEvent): void {
    const r = e.rt;
    if (r.group === '' && r.resource === 'services') {
      if (e.type === 'MODIFIED') return;
      const { namespace, name } = e.object.metadata;
      for (const key of this.index.naming(namespace ?? 'default', name ?? ''))
        this.queue.add(`${routeKey}${key}`);
      return;
    }
    if (r.group !== GATEWAY_GROUP) return;
    if (e.type === 'MODIFIED' && deepEqual(e.previous?.spec, e.object.spec)) return;
    if (r.resource !== 'httproutes') {
      this.queue.add(everything);
      return;
    }
    if (e.type !== 'DELETED') this.queue.add(`${routeKey}${nsKey(e.object)}`);
    this.queue.add(gateways);
  }

  private sync(key: string): void {
    if (key.startsWith(routeKey)) {
      const [namespace, name] = splitKey(key.slice(routeKey.length));
      const route = this.api.tryGet(this.routesRt, namespace, name);
      if (route) this.routeStatus(asRoute(route));
      return;
    }
    for (const gc of this.api.store.list(this.classesRt)) this.classStatus(gc);
    for (const gw of this.api.store.list(this.gatewaysRt)) this.gatewayStatus(gw);
    if (key === everything)
      for (const route of this.api.store.list(this.routesRt)) this.routeStatus(asRoute(route));
  }

  private condition(
    previous: Condition[] | undefined,
    type: string,
    ok: boolean,
    reason: string,
    message: string,
    generation: number | undefined,
  ): Condition {
    const status = ok ? 'True' : 'False';
    const before = previous?.find((c) => c.type === type);
    const same = before && before.status === status && before.reason === reason;
    return {
      type,
      status,
      reason,
      message,
      lastTransitionTime: same ? (before.lastTransitionTime ?? metaTime()) : metaTime(),
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    };
  }

  private classStatus(gc: KubeObject): void {
    const spec = gc.spec as { controllerName?: string } | undefined;
    if (spec?.controllerName !== CONTROLLER_NAME) return;
    const previous = (gc.status as { conditions?: Condition[] } | undefined)?.conditions;
    const status = {
      conditions: [
        this.condition(
          previous,
          'Accepted',
          true,
          'Accepted',
          'served by the local preview gateway',
          gc.metadata.generation,
        ),
      ],
      supportedFeatures: SUPPORTED_FEATURES.map((name) => ({ name })),
    };
    this.api.writeStatus(this.classesRt, gc, status, MANAGER);
  }

  private ours(gw: KubeObject | undefined): boolean {
    return (gw?.spec as { gatewayClassName?: string } | undefined)?.gatewayClassName === GATEWAY_CLASS;
  }

  private gatewayStatus(gw: KubeObject): void {
    if (!this.ours(gw)) return;
    const g = gw.metadata.generation;
    const previous =
      (gw.status as
        | { conditions?: Condition[]; listeners?: { name: string; conditions?: Condition[] }[] }
        | undefined) ?? {};
    const listeners = ((gw.spec as { listeners?: Listener[] }).listeners ?? []).map((l) => {
      const attached = this.index.attachedCount(gw.metadata.namespace ?? '', gw.metadata.name ?? '', l.name);
      const before = previous.listeners?.find((x) => x.name === l.name)?.conditions;
      return {
        name: l.name,
        supportedKinds: [{ group: GATEWAY_GROUP, kind: 'HTTPRoute' }],
        attachedRoutes: attached,
        conditions: [
          this.condition(before, 'Accepted', true, 'Accepted', 'listener accepted', g),
          this.condition(before, 'Programmed', true, 'Programmed', 'listener programmed', g),
          this.condition(before, 'ResolvedRefs', true, 'ResolvedRefs', 'references resolved', g),
        ],
      };
    });
    const status = {
      addresses: [{ type: 'IPAddress', value: '127.0.0.1' }],
      conditions: [
        this.condition(
          previous.conditions,
          'Accepted',
          true,
          'Accepted',
          'accepted by the local preview gateway',
          g,
        ),
        this.condition(
          previous.conditions,
          'Programmed',
          true,
          'Programmed',
          'the local preview gateway serves it',
          g,
        ),
      ],
      listeners,
    };
    this.api.writeStatus(this.gatewaysRt, gw, status, MANAGER);
  }

  private resolvedRefs(route: HTTPRoute): { ok: boolean; reason: string; message: string } {
    for (const rule of route.spec.rules ?? []) {
      for (const b of rule.backendRefs ?? []) {
        if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') {
          return {
            ok: false,
            reason: 'InvalidKind',
            message: `backendRef ${b.name}: only core Services are supported`,
          };
        }
        const namespace = b.namespace ?? route.metadata.namespace ?? 'default';
        if (!referenceGranted(this.api.store.list(this.grantsRt, namespace), route, namespace, b.name)) {
          return {
            ok: false,
            reason: 'RefNotPermitted',
            message: `backendRef ${namespace}/${b.name} is in another namespace and no ReferenceGrant allows it`,
          };
        }
        if (!this.api.tryGet(this.servicesRt, namespace, b.name)) {
          return {
            ok: false,
            reason: 'BackendNotFound',
            message: `Service ${namespace}/${b.name} not found`,
          };
        }
      }
    }
    return { ok: true, reason: 'ResolvedRefs', message: 'all references resolved' };
  }

  private accepted(
    route: HTTPRoute,
    ref: ParentRef,
  ): { ok: boolean; reason: string; message: string } | undefined {
    const namespace = ref.namespace ?? route.metadata.namespace ?? 'default';
    if (isServiceParent(ref)) {
      return this.api.tryGet(this.servicesRt, namespace, ref.name)
        ? { ok: true, reason: 'Accepted', message: `attached to Service ${namespace}/${ref.name}` }
        : { ok: false, reason: 'NoMatchingParent', message: `Service ${namespace}/${ref.name} not found` };
    }
    if (!isGatewayParent(ref)) return undefined;
    const gw = this.api.tryGet(this.gatewaysRt, namespace, ref.name);
    if (!gw)
      return { ok: false, reason: 'NoMatchingParent', message: `Gateway ${namespace}/${ref.name} not found` };
    if (!this.ours(gw)) return undefined;
    const listeners = ((gw.spec as { listeners?: Listener[] }).listeners ?? []).filter(
      (l) => ref.sectionName === undefined || l.name === ref.sectionName,
    );
    if (listeners.length === 0)
      return {
        ok: false,
        reason: 'NoMatchingParent',
        message: `Gateway ${namespace}/${ref.name} has no listener ${ref.sectionName}`,
      };
    const hostnames = route.spec.hostnames ?? [];
    const intersects =
      hostnames.length === 0 ||
      listeners.some(
        (l) =>
          !l.hostname ||
          hostnames.some(
            (h) =>
              hostnameMatches(l.hostname ?? '', h.toLowerCase()) ||
              hostnameMatches(h, (l.hostname ?? '').toLowerCase()),
          ),
      );
    if (!intersects) {
      return {
        ok: false,
        reason: 'NoMatchingListenerHostname',
        message: `no listener of Gateway ${namespace}/${ref.name} accepts hostnames ${hostnames.join(', ')}`,
      };
    }
    return { ok: true, reason: 'Accepted', message: `attached to Gateway ${namespace}/${ref.name}` };
  }

  private routeStatus(route: HTTPRoute): void {
    const previous =
      (
        route.status as
          | { parents?: { parentRef: ParentRef; controllerName: string; conditions?: Condition[] }[] }
          | undefined
      )?.parents ?? [];
    const foreign = previous.filter((p) => p.controllerName !== CONTROLLER_NAME);
    const refs = this.resolvedRefs(route);
    const g = route.metadata.generation;
    const mine = (route.spec.parentRefs ?? []).flatMap((ref) => {
      const accepted = this.accepted(route, ref);
      if (!accepted) return [];
      const before = previous.find(
        (p) => p.controllerName === CONTROLLER_NAME && deepEqual(p.parentRef, ref),
      )?.conditions;
      return [
        {
          parentRef: ref,
          controllerName: CONTROLLER_NAME,
          conditions: [
            this.condition(before, 'Accepted', accepted.ok, accepted.reason, accepted.message, g),
            this.condition(before, 'ResolvedRefs', refs.ok, refs.reason, refs.message, g),
          ],
        },
      ];
    });
    this.api.writeStatus(this.routesRt, route, { parents: [...foreign, ...mine] }, MANAGER);
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
