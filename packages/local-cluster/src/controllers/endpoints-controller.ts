// Endpoints and EndpointSlices for Services with a selector, from the pods that match it: ready
// pods are addresses, the others notReadyAddresses.

import { deepEqual } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import { requirementsOf } from '../api/selectors.ts';
import { addTo, removeFrom } from '../api/set-map.ts';
import type { StoreEvent } from '../api/store.ts';
import type { KubeObject, Pod, Service, ServicePort } from '../api/types.ts';
import { isPodReady, nsKey, ownerRefTo, splitKey } from './owners.ts';
import { WorkQueue } from './work-queue.ts';

const MANAGER = 'kube-controller-manager';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

function matches(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** The entry a Service is indexed under: any one of its selector's labels, since a match needs all. */
function indexEntry(svc: KubeObject | undefined): string | undefined {
  const selector = (svc as Service | undefined)?.spec?.selector ?? {};
  const [first] = Object.keys(selector).sort();
  return first === undefined ? undefined : `${first}=${selector[first]}`;
}

/** A named targetPort resolves to the container port of that name in the pod. */
function resolveTargetPort(port: ServicePort, pod: Pod | undefined): number {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod?.spec.containers ?? []) {
    const found = c.ports?.find((p) => p.name === target);
    if (found) return found.containerPort;
  }
  return port.port;
}

export class EndpointsController {
  private readonly api: Api;
  private readonly queue: WorkQueue;
  private readonly servicesRt: ResourceType;
  private readonly podsRt: ResourceType;
  private readonly endpointsRt: ResourceType;
  private readonly slicesRt: ResourceType;
  /** Services by one label of their selector, so a pod's change finds its Services without reading them all. */
  private readonly bySelector = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  constructor(api: Api) {
    this.api = api;
    this.servicesRt = api.rt('', 'services');
    this.podsRt = api.rt('', 'pods');
    this.endpointsRt = api.rt('', 'endpoints');
    this.slicesRt = api.rt('discovery.k8s.io', 'endpointslices');
    this.queue = new WorkQueue('endpoints', (key) => this.sync(key));
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
    for (const s of api.store.list(this.servicesRt)) {
      this.index(s, undefined);
      this.queue.add(nsKey(s));
    }
  }

  private index(svc: KubeObject | undefined, previous: KubeObject | undefined): void {
    const before = indexEntry(previous);
    const after = indexEntry(svc);
    if (before !== undefined && previous) removeFrom(this.bySelector, before, nsKey(previous));
    if (after !== undefined && svc) addTo(this.bySelector, after, nsKey(svc));
  }

  private onEvent(e: StoreEvent): void {
    if (e.rt.group !== '') return;
    if (e.rt.resource === 'services') {
      this.index(e.type === 'DELETED' ? undefined : e.object, e.previous);
      this.queue.add(nsKey(e.object));
      return;
    }
    if (e.rt.resource !== 'pods') return;
    const namespace = e.object.metadata.namespace;
    const labels = [e.object.metadata.labels, e.previous?.metadata.labels];
    const keys = new Set(
      labels.flatMap((l) =>
        Object.entries(l ?? {}).flatMap(([k, v]) => [...(this.bySelector.get(`${k}=${v}`) ?? [])]),
      ),
    );
    for (const key of keys) {
      const [ns, name] = splitKey(key);
      if (ns !== namespace) continue;
      const svc = this.api.tryGet(this.servicesRt, ns, name) as Service | undefined;
      if (svc && labels.some((l) => matches(svc.spec.selector, l))) this.queue.add(key);
    }
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const svc = this.api.tryGet(this.servicesRt, namespace, name) as Service | undefined;
    if (!svc?.spec.selector || Object.keys(svc.spec.selector).length === 0) {
      if (!svc) {
        const ep = this.api.tryGet(this.endpointsRt, namespace, name);
        if (ep) this.api.delete(this.endpointsRt, namespace, name);
      }
      return;
    }
    const candidates = this.api.store.candidates(
      this.podsRt,
      namespace,
      requirementsOf({ matchLabels: svc.spec.selector }),
    );
    const pods = (candidates as Pod[]).filter(
      (p) =>
        matches(svc.spec.selector, p.metadata.labels) &&
        !p.metadata.deletionTimestamp &&
        p.status?.podIP &&
        (p.status.phase === 'Pending' || p.status.phase === 'Running'),
    );
    const ports = svc.spec.ports ?? [];
    const address = (p: Pod) => ({
      ip: p.status?.podIP ?? '',
      nodeName: p.spec.nodeName ?? 'local-node',
      targetRef: { kind: 'Pod', namespace, name: p.metadata.name, uid: p.metadata.uid },
    });
    const byIp = (a: { ip: string }, b: { ip: string }) => a.ip.localeCompare(b.ip);
    const ready = pods.filter(isPodReady).map(address).sort(byIp);
    const notReady = pods
      .filter((p) => !isPodReady(p))
      .map(address)
      .sort(byIp);
    const epPorts = ports.map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      port: resolveTargetPort(p, pods[0]),
      protocol: p.protocol ?? 'TCP',
    }));
    const subsets =
      ready.length + notReady.length === 0
        ? undefined
        : [
            {
              ...(ready.length > 0 ? { addresses: ready } : {}),
              ...(notReady.length > 0 ? { notReadyAddresses: notReady } : {}),
              ports: epPorts,
            },
          ];
    this.upsert(this.endpointsRt, namespace, name, (existing) => ({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        ...(existing?.metadata ?? {}),
        name,
        namespace,
        labels: { ...svc.metadata.labels },
      },
      ...(subsets ? { subsets } : {}),
    }));

    const sliceName = `${name}-local`;
    this.upsert(this.slicesRt, namespace, sliceName, (existing) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        ...(existing?.metadata ?? {}),
        name: sliceName,
        namespace,
        labels: {
          ...svc.metadata.labels,
          [SERVICE_NAME_LABEL]: name,
          'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
        },
        ownerReferences: [ownerRefTo(this.servicesRt, svc)],
      },
      addressType: 'IPv4',
      endpoints: [
        ...ready.map((a) => ({ a, ready: true })),
        ...notReady.map((a) => ({ a, ready: false })),
      ].map(({ a, ready: r }) => ({
        addresses: [a.ip],
        conditions: { ready: r, serving: r, terminating: false },
        nodeName: a.nodeName,
        targetRef: a.targetRef,
      })),
      ports: epPorts,
    }));
  }

  private upsert(
    rt: ResourceType,
    namespace: string,
    name: string,
    build: (existing: KubeObject | undefined) => KubeObject,
  ): void {
    const existing = this.api.tryGet(rt, namespace, name);
    const desired = build(existing);
    if (!existing) {
      this.api.create(rt, namespace, desired, { fieldManager: MANAGER });
      return;
    }
    const comparable = (o: KubeObject): unknown => ({
      ...o,
      metadata: { labels: o.metadata.labels, ownerReferences: o.metadata.ownerReferences },
    });
    if (deepEqual(comparable(existing), comparable(desired))) return;
    this.api.update(rt, namespace, name, desired, { fieldManager: MANAGER });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
