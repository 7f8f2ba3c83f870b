// In-process request routing between virtual workloads: the public gateway's entry, GAMMA routes
// attached to Services, endpoint choice among ready pods, and the workload each pod runs.

import type { Checks } from '@svc/core';
import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import type { KubeObject, Pod, Service } from '../api/types.ts';
import type { Keda } from '../controllers/keda.ts';
import { COMPONENT_LABEL } from '../controllers/kubelet.ts';
import { isPodReady } from '../controllers/owners.ts';
import type { Faults } from '../faults.ts';
import type { RouteIndex } from './route-index.ts';
import {
  applyHeaderChanges,
  type BackendRef,
  GATEWAY_GROUP,
  type HTTPRoute,
  hostnameMatches,
  isGatewayParent,
  isServiceParent,
  pickBackend,
  type RoutedRequest,
  type RouteFilter,
  referenceGranted,
  routingKey,
  selectRule,
} from './routes.ts';

export const DEPENDENCIES_ANNOTATION = 'preview.local/dependencies';
export const GATEWAY_CLASS = 'local';
const MAX_HOPS = 16;

export interface MeshRequest extends RoutedRequest {
  body: string;
}

export interface MeshResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

interface Call {
  service: string;
  status: number;
  body: unknown;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): MeshResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

function problem(
  status: number,
  error: string,
  reason: string,
  extra: Record<string, unknown> = {},
): MeshResponse {
  return json(status, { error, reason, ...extra });
}

export class Mesh {
  private readonly api: Api;
  private readonly faults: Faults;
  private readonly writeLog: (pod: Pod, line: string) => void;
  private readonly previewDomain: string;
  private readonly gatewaysRt: ResourceType;
  private readonly servicesRt: ResourceType;
  private readonly endpointsRt: ResourceType;
  private readonly podsRt: ResourceType;
  private readonly grantsRt: ResourceType;
  private readonly roundRobin = new Map<string, number>();

  private readonly index: RouteIndex;
  private readonly keda: Keda | null;

  constructor(
    api: Api,
    faults: Faults,
    writeLog: (pod: Pod, line: string) => void,
    previewDomain: string,
    index: RouteIndex,
    keda: Keda | null = null,
  ) {
    this.api = api;
    this.keda = keda;
    this.index = index;
    this.faults = faults;
    this.writeLog = writeLog;
    this.previewDomain = previewDomain.toLowerCase();
    this.gatewaysRt = api.rt(GATEWAY_GROUP, 'gateways');
    this.servicesRt = api.rt('', 'services');
    this.endpointsRt = api.rt('', 'endpoints');
    this.podsRt = api.rt('', 'pods');
    this.grantsRt = api.rt(GATEWAY_GROUP, 'referencegrants');
  }

  /** Whether `ref` (from a route in `namespace`) names a Gateway this gateway serves. */
  servesGateway(
    ref: { namespace?: string; name: string },
    namespace: string | undefined,
  ): KubeObject | undefined {
    const gw = this.api.tryGet(this.gatewaysRt, ref.namespace ?? namespace, ref.name);
    const spec = gw?.spec as { gatewayClassName?: string } | undefined;
    return spec?.gatewayClassName === GATEWAY_CLASS ? gw : undefined;
  }

  /** North-south: a request arriving at the gateway for `host`. */
  async handlePublic(host: string, req: MeshRequest): Promise<MeshResponse> {
    const hostname = host.replace(/:\d+$/, '').toLowerCase();
    const injected = await this.faults.beforeGatewayHop({
      method: req.method,
      path: req.path,
      host: hostname,
    });
    if (injected) return problem(injected, 'injected_fault', `fault injected at the gateway for ${hostname}`);
    const listenerHost = `*.${this.previewDomain}`;
    if (!hostnameMatches(listenerHost, hostname)) {
      return problem(
        404,
        'unknown_host',
        `the preview gateway serves *.${this.previewDomain}, not ${hostname}`,
      );
    }
    const attached = this.index
      .forHost(hostname)
      .filter((r) =>
        (r.spec.parentRefs ?? []).some(
          (p) => isGatewayParent(p) && this.servesGateway(p, r.metadata.namespace),
        ),
      );
    const hostScore = (r: HTTPRoute): number => {
      const names = r.spec.hostnames ?? [];
      if (names.length === 0) return 1;
      if (names.some((n) => n.toLowerCase() === hostname)) return 3;
      return names.some((n) => hostnameMatches(n, hostname)) ? 2 : -1;
    };
    const candidates = attached.filter((r) => hostScore(r) > 0);
    const decision = selectRule(candidates, req, hostScore);
    if (!decision) return problem(404, 'no_route', `no HTTPRoute matches ${hostname}${req.path}`);
    return this.forward(decision.route, decision.rule, req, 0);
  }

  private async forward(
    route: HTTPRoute,
    rule: { filters?: RouteFilter[]; backendRefs?: BackendRef[] },
    req: MeshRequest,
    depth: number,
  ): Promise<MeshResponse> {
    const headers = { ...req.headers };
    let path = req.path;
    const responseChanges: RouteFilter[] = [];
    for (const f of rule.filters ?? []) {
      if (f.type === 'RequestHeaderModifier') applyHeaderChanges(headers, f.requestHeaderModifier);
      else if (f.type === 'ResponseHeaderModifier') responseChanges.push(f);
      else if (f.type === 'RequestRedirect' && f.requestRedirect) {
        const r = f.requestRedirect;
        const location = `${r.scheme ?? 'http'}://${r.hostname ?? headers.host ?? ''}${r.port ? `:${r.port}` : ''}${r.path?.replaceFullPath ?? path}`;
        return { status: r.statusCode ?? 302, headers: { location }, body: '' };
      } else if (f.type === 'URLRewrite') {
        if (f.urlRewrite?.hostname) headers.host = f.urlRewrite.hostname;
        if (f.urlRewrite?.path?.type === 'ReplaceFullPath') path = f.urlRewrite.path.replaceFullPath ?? path;
      }
    }
    const backend = pickBackend(rule);
    if (!backend)
      return problem(
        500,
        'no_backend',
        `HTTPRoute ${route.metadata.namespace}/${route.metadata.name} has no usable backendRefs`,
      );
    if ((backend.kind ?? 'Service') !== 'Service' || (backend.group ?? '') !== '') {
      return problem(500, 'invalid_backend', `backendRef kind ${backend.kind} is not supported`);
    }
    for (const f of backend.filters ?? [])
      if (f.type === 'RequestHeaderModifier') applyHeaderChanges(headers, f.requestHeaderModifier);
    const namespace = backend.namespace ?? route.metadata.namespace ?? 'default';
    // As upstream gateways do: a backend the route may not reach answers 500, never forwarded.
    if (!referenceGranted(this.api.store.list(this.grantsRt, namespace), route, namespace, backend.name)) {
      return problem(
        500,
        'ref_not_permitted',
        `backendRef Service ${namespace}/${backend.name} is in another namespace and no ReferenceGrant allows it`,
      );
    }
    const svc = this.api.tryGet(this.servicesRt, namespace, backend.name) as Service | undefined;
    if (!svc)
      return problem(
        500,
        'backend_not_found',
        `backendRef Service ${namespace}/${backend.name} does not exist`,
      );
    const forwarded = { ...req, path, headers };
    const response = this.keda?.isInterceptor(namespace, backend.name)
      ? await this.keda.intercept(headers.host ?? '', Buffer.byteLength(req.body), (ns, name, port) =>
          this.callService(ns, name, port, forwarded, depth),
        )
      : await this.toEndpoints(svc, backend.port, forwarded, depth);
    for (const f of responseChanges) applyHeaderChanges(response.headers, f.responseHeaderModifier);
    return response;
  }

  /** East-west: a workload calling `service` in `namespace`, through GAMMA routes when attached. */
  async callService(
    namespace: string,
    service: string,
    port: number | undefined,
    req: MeshRequest,
    depth: number,
  ): Promise<MeshResponse> {
    if (depth >= MAX_HOPS)
      return problem(508, 'loop_detected', `more than ${MAX_HOPS} hops: the dependency graph has a cycle`);
    const injected = await this.faults.beforeGatewayHop({
      method: req.method,
      path: req.path,
      service,
      namespace,
    });
    if (injected) return problem(injected, 'injected_fault', `fault injected on the call to ${service}`);
    const svc = this.api.tryGet(this.servicesRt, namespace, service) as Service | undefined;
    if (!svc)
      return problem(503, 'service_not_found', `service "${service}" not found in namespace "${namespace}"`, {
        service,
      });
    const effectivePort = port ?? svc.spec.ports?.[0]?.port;
    const attached = this.index
      .attachedTo(namespace, service)
      .filter((r) =>
        (r.spec.parentRefs ?? []).some(
          (p) =>
            isServiceParent(p) &&
            p.name === service &&
            (p.namespace ?? r.metadata.namespace) === namespace &&
            (p.port === undefined || p.port === effectivePort),
        ),
      );
    if (attached.length === 0) return this.toEndpoints(svc, effectivePort, req, depth);
    const decision = selectRule(attached, req);
    if (!decision)
      return problem(
        404,
        'no_route',
        `no rule of the HTTPRoutes attached to service "${service}" matches the request`,
        { service },
      );
    return this.forward(decision.route, decision.rule, req, depth);
  }

  private async toEndpoints(
    svc: Service,
    port: number | undefined,
    req: MeshRequest,
    depth: number,
  ): Promise<MeshResponse> {
    const namespace = svc.metadata.namespace ?? 'default';
    const name = svc.metadata.name ?? '';
    if (port !== undefined && !(svc.spec.ports ?? []).some((p) => p.port === port)) {
      return problem(503, 'no_such_port', `service "${name}" has no port ${port}`, { service: name });
    }
    const ep = this.api.tryGet(this.endpointsRt, namespace, name) as
      | { subsets?: { addresses?: { targetRef?: { name?: string } }[] }[] }
      | undefined;
    const podNames = (ep?.subsets ?? []).flatMap((s) =>
      (s.addresses ?? []).map((a) => a.targetRef?.name ?? ''),
    );
    const ready = podNames
      .map((p) => this.api.tryGet(this.podsRt, namespace, p) as Pod | undefined)
      .filter((p): p is Pod => p !== undefined && isPodReady(p));
    if (ready.length === 0) {
      return problem(
        503,
        'no_ready_endpoints',
        `service "${name}" in namespace "${namespace}" has no ready endpoints`,
        { service: name },
      );
    }
    const key = `${namespace}/${name}`;
    const n = this.roundRobin.get(key) ?? 0;
    this.roundRobin.set(key, n + 1);
    const pod = ready[n % ready.length] as Pod;
    return this.serve(pod, req, depth + 1);
  }

  /** The virtual workload: names itself, calls its declared dependencies and nests their answers. */
  private async serve(pod: Pod, req: MeshRequest, depth: number): Promise<MeshResponse> {
    const namespace = pod.metadata.namespace ?? 'default';
    const baggage = req.headers.baggage;
    const key = routingKey(baggage);
    const deps = (pod.metadata.annotations?.[DEPENDENCIES_ANNOTATION] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const calls: Call[] = await Promise.all(
      deps.map(async (service) => {
        const headers: Record<string, string> = baggage === undefined ? {} : { baggage };
        const r = await this.callService(
          namespace,
          service,
          undefined,
          { method: 'GET', path: req.path, query: req.query, headers, body: '' },
          depth,
        );
        return { service, status: r.status, body: r.body };
      }),
    );
    const body = {
      component: pod.metadata.labels?.[COMPONENT_LABEL] ?? null,
      image: pod.spec.containers[0]?.image ?? null,
      pod: pod.metadata.name ?? null,
      namespace,
      routing_key: key,
      calls,
    } satisfies Checks.HopReport;
    const failed = calls.filter((c) => c.status >= 400).map((c) => `${c.service}=${c.status}`);
    this.writeLog(
      pod,
      `${req.method} ${req.path} 200 routing_key=${key ?? '-'}${deps.length ? ` calls=${calls.map((c) => `${c.service}:${c.status}`).join(',')}` : ''}${failed.length ? ' degraded' : ''}`,
    );
    return json(200, body, { 'x-served-by': `${namespace}/${pod.metadata.name}` });
  }
}
