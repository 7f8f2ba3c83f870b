// KEDA and its HTTP add-on, as far as scale to and from zero goes: ScaledObjects scale their
// Deployment to zero after `cooldownPeriod` seconds with no active trigger and up to
// `maxReplicaCount` when one becomes active; the interceptor's Service routes a request by its Host
// to an InterceptorRoute's target, holding it (bounded) while the target scales from zero.
// Triggers understood: `external-push` naming an InterceptorRoute (active while it has requests in
// flight) and `aws-sqs-queue` (active while the queue holds messages, visible or in flight). With no
// trigger active, a target below `minReplicaCount` is scaled up to it, as KEDA's executor does
// (`idleReplicaCount` is not served).

import type { Api } from '../api/operations.ts';
import type { ResourceDeclaration, ResourceType } from '../api/registry.ts';
import type { KubeObject } from '../api/types.ts';

export const kedaResources: ResourceDeclaration[] = [
  { group: 'keda.sh', version: 'v1alpha1', kind: 'ScaledObject', shortNames: ['so'], hasStatus: true },
  { group: 'http.keda.sh', version: 'v1beta1', kind: 'InterceptorRoute', hasStatus: true },
];

/** Where the add-on's chart puts its interceptor: the local cluster has it from the start. */
export const interceptorService = {
  namespace: 'keda',
  name: 'keda-add-ons-http-interceptor-proxy',
  port: 8080,
};

export interface HoldLimits {
  /** Requests held at once across the cluster. */
  requests: number;
  /** Bytes of request bodies held at once. */
  bytes: number;
  /** How long one request is held before it is answered 503. */
  ms: number;
}

const defaultHoldLimits: HoldLimits = { requests: 1000, bytes: 16 * 1024 * 1024, ms: 20_000 };

interface Trigger {
  type: string;
  metadata?: Record<string, string>;
}

interface ScaledObjectSpec {
  scaleTargetRef: { name: string };
  minReplicaCount?: number;
  maxReplicaCount?: number;
  cooldownPeriod?: number;
  triggers?: Trigger[];
}

export type Forward = (namespace: string, service: string, port: number) => Promise<HeldAnswer>;

export interface HeldAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** What a queue trigger asks: the messages on a queue (null when it cannot be read). */
export type QueueDepth = (trigger: Record<string, string>) => Promise<number | null>;

const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

export class Keda {
  private readonly api: Api;
  private readonly scaledObjects: ResourceType;
  private readonly routes: ResourceType;
  private readonly deployments: ResourceType;
  private readonly endpoints: ResourceType;
  private readonly limits: HoldLimits;
  private readonly queueDepth: QueueDepth;
  /** Requests in flight per InterceptorRoute (namespace/name). */
  private readonly inFlight = new Map<string, number>();
  /** When each ScaledObject's triggers were last active. */
  private readonly lastActive = new Map<string, number>();
  private held = { requests: 0, bytes: 0 };
  private readonly timer: NodeJS.Timeout;
  private ticking = false;

  constructor(api: Api, options: { limits?: Partial<HoldLimits>; tickMs?: number; queueDepth: QueueDepth }) {
    this.api = api;
    this.scaledObjects = api.rt('keda.sh', 'scaledobjects');
    this.routes = api.rt('http.keda.sh', 'interceptorroutes');
    this.deployments = api.rt('apps', 'deployments');
    this.endpoints = api.rt('', 'endpoints');
    this.limits = { ...defaultHoldLimits, ...options.limits };
    this.queueDepth = options.queueDepth;
    this.timer = setInterval(() => void this.tick(), options.tickMs ?? 250);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  isInterceptor(namespace: string, name: string): boolean {
    return namespace === interceptorService.namespace && name === interceptorService.name;
  }

  /** The interceptor: `host`'s route, its target woken if asleep, the request held until it is ready. */
  async intercept(host: string, bodyBytes: number, forward: Forward): Promise<HeldAnswer> {
    const hostname = host.replace(/:\d+$/, '').toLowerCase();
    const route = this.api.list(this.routes, undefined).items.find((r) => routeHosts(r).includes(hostname));
    if (!route) {
      return answer(404, {
        error: 'no_interceptor_route',
        reason: `no InterceptorRoute has host ${hostname}`,
      });
    }
    const routeKey = key(route);
    const target = (route.spec as { target: { service: string; port: number } }).target;
    const namespace = route.metadata.namespace ?? 'default';
    this.inFlight.set(routeKey, (this.inFlight.get(routeKey) ?? 0) + 1);
    try {
      for (const so of this.scaledObjectsOf(route)) this.activate(so);
      const deadline = Date.now() + this.limits.ms;
      for (;;) {
        if (!this.hasReadyEndpoints(namespace, target.service)) {
          const refused = await this.hold(namespace, target.service, bodyBytes, deadline);
          if (refused) return refused;
        }
        const answered = await forward(namespace, target.service, target.port);
        // Endpoints lag their pods: a request that comes in as the target scales to zero can be
        // sent to a pod already gone. KEDA's interceptor retries its dial until its timeout; so
        // does this one, holding the request until a pod of the wake it started is ready.
        if (!targetGone(answered, target.service) || Date.now() >= deadline) return answered;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      this.inFlight.set(routeKey, (this.inFlight.get(routeKey) ?? 1) - 1);
      for (const so of this.scaledObjectsOf(route)) this.lastActive.set(key(so), Date.now());
    }
  }

  /** Waits for a ready endpoint within the limits; a 503 saying the preview is waking when past them. */
  private async hold(
    namespace: string,
    service: string,
    bodyBytes: number,
    deadline: number,
  ): Promise<HeldAnswer | null> {
    if (this.held.requests + 1 > this.limits.requests || this.held.bytes + bodyBytes > this.limits.bytes) {
      return waking(
        `the interceptor already holds as many requests as it may (${this.limits.requests} requests, ${this.limits.bytes} bytes)`,
      );
    }
    this.held = { requests: this.held.requests + 1, bytes: this.held.bytes + bodyBytes };
    try {
      do {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (this.hasReadyEndpoints(namespace, service)) return null;
      } while (Date.now() < deadline);
      return waking(`no pod of ${namespace}/${service} was ready within ${this.limits.ms} ms`);
    } finally {
      this.held = { requests: this.held.requests - 1, bytes: this.held.bytes - bodyBytes };
    }
  }

  private hasReadyEndpoints(namespace: string, service: string): boolean {
    const ep = this.api.tryGet(this.endpoints, namespace, service) as
      | { subsets?: { addresses?: unknown[] }[] }
      | undefined;
    return (ep?.subsets ?? []).some((s) => (s.addresses ?? []).length > 0);
  }

  private scaledObjectsOf(route: KubeObject): KubeObject[] {
    return this.api
      .list(this.scaledObjects, route.metadata.namespace)
      .items.filter((so) =>
        (spec(so).triggers ?? []).some(
          (t) => t.type === 'external-push' && t.metadata?.interceptorRoute === route.metadata.name,
        ),
      );
  }

  /** A trigger is active: the target comes up to its maximum if it was at zero. */
  private activate(so: KubeObject): void {
    this.lastActive.set(key(so), Date.now());
    const { scaleTargetRef, maxReplicaCount = 100 } = spec(so);
    const deployment = this.api.tryGet(this.deployments, so.metadata.namespace, scaleTargetRef.name);
    if (deployment && replicasOf(deployment) === 0) this.scale(so, Math.max(1, maxReplicaCount));
  }

  private scale(so: KubeObject, replicas: number): void {
    this.api.patch(
      this.deployments,
      so.metadata.namespace,
      spec(so).scaleTargetRef.name,
      'application/merge-patch+json',
      { spec: { replicas } },
      { fieldManager: 'keda-operator' },
    );
  }

  /** The operator's loop: activity from queues, and scale to zero past the cooldown. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const so of this.api.list(this.scaledObjects, undefined).items) await this.reconcile(so);
    } finally {
      this.ticking = false;
    }
  }

  private async reconcile(so: KubeObject): Promise<void> {
    const soKey = key(so);
    const { triggers = [], cooldownPeriod = 300, scaleTargetRef } = spec(so);
    if (!this.lastActive.has(soKey)) this.lastActive.set(soKey, Date.now());
    const requests = triggers.some(
      (t) =>
        t.type === 'external-push' &&
        (this.inFlight.get(`${so.metadata.namespace}/${t.metadata?.interceptorRoute}`) ?? 0) > 0,
    );
    const depths = await Promise.all(
      triggers.filter((t) => t.type === 'aws-sqs-queue').map((t) => this.queueDepth(t.metadata ?? {})),
    );
    const current = this.api.tryGet(this.scaledObjects, so.metadata.namespace, so.metadata.name ?? '');
    const deployment = this.api.tryGet(this.deployments, so.metadata.namespace, scaleTargetRef.name);
    if (!current || !deployment) return;
    if (requests || depths.some((d) => (d ?? 0) > 0)) {
      this.activate(current);
      return;
    }
    const { minReplicaCount: minimum = 0 } = spec(current);
    const idleMs = Date.now() - (this.lastActive.get(soKey) ?? 0);
    if (minimum === 0 && replicasOf(deployment) > 0 && idleMs >= cooldownPeriod * 1000) {
      this.scale(current, 0);
    } else if (replicasOf(deployment) < minimum) {
      // As KEDA does with no trigger active: up to the minimum, the trigger's last activity unmoved.
      this.scale(current, minimum);
    }
  }
}

function spec(so: KubeObject): ScaledObjectSpec {
  return so.spec as ScaledObjectSpec;
}

function replicasOf(deployment: KubeObject): number {
  return (deployment.spec as { replicas?: number }).replicas ?? 1;
}

function routeHosts(route: KubeObject): string[] {
  const rules = (route.spec as { rules?: { hosts?: string[] }[] }).rules ?? [];
  return rules.flatMap((r) => (r.hosts ?? []).map((h) => h.toLowerCase()));
}

/** The target's own answer that none of its endpoints has a ready pod (the mesh's 503), not a deeper hop's. */
function targetGone(answered: HeldAnswer, service: string): boolean {
  const body = answered.body as { error?: string; service?: string } | null;
  return answered.status === 503 && body?.error === 'no_ready_endpoints' && body.service === service;
}

function answer(status: number, body: unknown, headers: Record<string, string> = {}): HeldAnswer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

/** What a client gets past the hold's limits: come back shortly, the preview is starting. */
function waking(reason: string): HeldAnswer {
  return answer(
    503,
    { error: 'preview_waking', reason: `the preview is waking: ${reason}; retry shortly` },
    { 'retry-after': '2' },
  );
}

/**
 * An `aws-sqs-queue` trigger's queue depth, asked of the SQS endpoint the trigger names (the local
 * stack's fauxqs), visible and in-flight messages as KEDA counts them. Without an endpoint (AWS
 * itself) the local cluster cannot ask: null, never active.
 */
export const sqsQueueDepth: QueueDepth = async (trigger) => {
  const endpoint = trigger.awsEndpoint;
  if (!endpoint || !trigger.queueURL) return null;
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.GetQueueAttributes',
      },
      body: JSON.stringify({
        QueueUrl: trigger.queueURL,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
      signal: AbortSignal.timeout(2000),
    });
    if (!response.ok) return null;
    const { Attributes = {} } = (await response.json()) as { Attributes?: Record<string, string> };
    return (
      Number(Attributes.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
    );
  } catch {
    return null;
  }
};
