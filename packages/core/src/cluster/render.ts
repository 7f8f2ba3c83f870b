/**
 * What a composition is in the cluster, rendered as plain objects: an anchor owning everything,
 * a forked Deployment and Service per overridden component, the public route that injects the
 * routing key, and a mesh (GAMMA) route per overridden component sending keyed requests to its
 * fork. Applying the same render twice changes nothing (server-side apply, one field manager).
 */
import type { Baseline, ComponentProfile } from '../catalog/schema.ts';
import {
  Annotation,
  type ClusterObject,
  type Container,
  type Deployment,
  forkName,
  Label,
  managedBy,
  type OwnerReference,
  type Service,
} from './objects.ts';
import { forkHost, throughInterceptor } from './sleep.ts';

/** The W3C baggage entry that carries the routing key. */
const routingKeyName = 'preview-route';

/** The `baggage` entry a request carries to be routed to composition `id`'s forks. */
export function routingBaggage(id: string): string {
  return `${routingKeyName}=${id}`;
}

/** Forks keep at least one pod serving while a new image rolls out; a failed rollout leaves the old one. */
const forkProgressDeadlineSeconds = 120;

export const anchorName = (id: string) => `preview-${id}`;
const publicRouteName = (id: string) => `preview-${id}`;
const meshRouteName = (id: string, component: string) => forkName(`preview-${id}`, component);

export function compositionSelector(id: string): string {
  return `${Label.Composition}=${id}`;
}

export function forkSelector(id: string, component: string): string {
  return `${Label.Composition}=${id},${Label.Component}=${component}`;
}

/** A regular expression matching a `baggage` header that carries this composition's routing key. */
export function baggageMatch(id: string): string {
  return `^(.*[,\\s])?${routingKeyName}=${id}(\\s*[,;].*)?$`;
}

function compositionLabels(id: string): Record<string, string> {
  return { [Label.ManagedBy]: managedBy, [Label.Composition]: id };
}

export function anchor(id: string, namespace: string, generation: number): ClusterObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: anchorName(id), namespace, labels: compositionLabels(id) },
    data: { composition: id, generation: String(generation) },
  };
}

export function ownerReference(anchorObject: ClusterObject): OwnerReference {
  if (!anchorObject.metadata.uid) throw new Error('the anchor has no uid yet: apply it first');
  return {
    apiVersion: anchorObject.apiVersion,
    kind: anchorObject.kind,
    name: anchorObject.metadata.name,
    uid: anchorObject.metadata.uid,
    blockOwnerDeletion: true,
  };
}

export interface ForkInput {
  id: string;
  generation: number;
  component: string;
  profile: ComponentProfile;
  baseline: Baseline;
  baselineDeployment: Deployment;
  baselineService: Service | null;
  image: string;
  owner: OwnerReference;
  /** Default 120 s; shorter in tests. */
  progressDeadlineSeconds?: number;
  /** Variables set on the profile's container, e.g. the queue URL of an isolated subscription. */
  env?: readonly { name: string; value: string }[];
  /**
   * The fork sleeps: its replicas are its ScaledObject's to set, so the apply leaves them out (a
   * manager that kept writing them would wake it on every apply).
   */
  sleeps?: boolean;
}

/**
 * The fork: the baseline's pod template with the override image in the profile's container. Labels
 * the baseline Service selects on are dropped from the fork's pods, so baseline traffic never
 * reaches a fork; the fork is selected by composition and component instead.
 */
export function forkDeployment(input: ForkInput): Deployment {
  const { id, component, profile, baselineDeployment: base } = input;
  const selectorKeys = new Set(Object.keys(input.baselineService?.spec.selector ?? {}));
  const baseLabels = base.spec.template.metadata?.labels ?? {};
  const podLabels = Object.fromEntries(Object.entries(baseLabels).filter(([key]) => !selectorKeys.has(key)));
  const ownLabels = { ...compositionLabels(id), [Label.Component]: component };
  const containers: Container[] = base.spec.template.spec.containers.map((container) =>
    container.name === profile.workload.container
      ? { ...container, image: input.image, ...withEnv(container, input.env ?? []) }
      : container,
  );
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: forkName(profile.workload.name, id),
      namespace: input.baseline.namespace,
      labels: ownLabels,
      annotations: {
        [Annotation.Generation]: String(input.generation),
        [Annotation.BaselineWorkload]: base.metadata.name,
      },
      ownerReferences: [input.owner],
    },
    spec: {
      ...(input.sleeps ? {} : { replicas: input.baseline.components[component]?.replicas ?? 1 }),
      progressDeadlineSeconds: input.progressDeadlineSeconds ?? forkProgressDeadlineSeconds,
      revisionHistoryLimit: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      selector: { matchLabels: { [Label.Composition]: id, [Label.Component]: component } },
      template: {
        metadata: {
          labels: { ...podLabels, ...ownLabels },
          ...(base.spec.template.metadata?.annotations
            ? { annotations: base.spec.template.metadata.annotations }
            : {}),
        },
        spec: { ...base.spec.template.spec, containers },
      },
    },
  };
}

/** The container's env with `overrides` replacing variables of the same name. */
function withEnv(
  container: Container,
  overrides: readonly { name: string; value: string }[],
): { env?: unknown[] } {
  if (overrides.length === 0) return {};
  const names = new Set(overrides.map((e) => e.name));
  const kept = ((container.env as { name: string }[] | undefined) ?? []).filter((e) => !names.has(e.name));
  return { env: [...kept, ...overrides] };
}

export function forkService(
  input: Pick<ForkInput, 'id' | 'component' | 'profile' | 'baseline' | 'baselineService' | 'owner'>,
): Service {
  const ports = input.baselineService?.spec.ports ?? [
    { name: 'http', port: input.profile.service.port, targetPort: input.profile.port, protocol: 'TCP' },
  ];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: forkName(input.profile.service.name, input.id),
      namespace: input.baseline.namespace,
      labels: { ...compositionLabels(input.id), [Label.Component]: input.component },
      ownerReferences: [input.owner],
    },
    spec: {
      selector: { [Label.Composition]: input.id, [Label.Component]: input.component },
      ports: ports.map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        port: p.port,
        ...(p.targetPort === undefined ? {} : { targetPort: p.targetPort }),
        protocol: p.protocol ?? 'TCP',
      })),
    },
  };
}

/**
 * The response header the gateway adds to a preview's answers while a generation rolls out: those
 * answers come from the baseline or the previous generation, not yet from the change.
 */
export const pendingHeader = 'Preview-Rollout';

/** `pending; generation=2`: the generation the answer does not come from yet. */
function pendingHeaderValue(generation: number): string {
  return `pending; generation=${generation}`;
}

/**
 * The public host's route: adds the routing key and forwards to the entry component — its fork when
 * the entry is overridden, since a gateway's own hop does not consult mesh (GAMMA) routes. While
 * `pendingGeneration` rolls out, answers carry `Preview-Rollout` (Gateway API
 * ResponseHeaderModifier), so nobody takes the baseline's answer for their change.
 */
export function publicRoute(input: {
  id: string;
  baseline: Baseline;
  entry: ComponentProfile;
  entryOverridden: boolean;
  owner: OwnerReference;
  pendingGeneration?: number | null;
  /** The forks sleep: the entry's fork is reached through the interceptor, crawlers reach the baseline. */
  sleep?: SleepRouting | null;
}): ClusterObject {
  const { service } = input.entry;
  const backend = input.entryOverridden ? forkName(service.name, input.id) : service.name;
  const toFork =
    input.entryOverridden && input.sleep
      ? throughInterceptor(forkHost(input.id, input.entry, input.baseline.namespace))
      : null;
  const pending =
    input.pendingGeneration == null
      ? []
      : [
          {
            type: 'ResponseHeaderModifier',
            responseHeaderModifier: {
              set: [{ name: pendingHeader, value: pendingHeaderValue(input.pendingGeneration) }],
            },
          },
        ];
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: {
      name: publicRouteName(input.id),
      namespace: input.baseline.namespace,
      labels: compositionLabels(input.id),
      ownerReferences: [input.owner],
    },
    spec: {
      parentRefs: [
        {
          group: 'gateway.networking.k8s.io',
          kind: 'Gateway',
          name: input.baseline.gateway.name,
          namespace: input.baseline.gateway.namespace,
        },
      ],
      hostnames: [`${input.id}.${input.baseline.preview_domain}`],
      rules: [
        ...crawlerRules(input.sleep, pending, { name: service.name, port: service.port }),
        {
          filters: [
            {
              type: 'RequestHeaderModifier',
              requestHeaderModifier: { add: [{ name: 'baggage', value: routingBaggage(input.id) }] },
            },
            ...pending,
            ...(toFork ? [toFork.filter] : []),
          ],
          backendRefs: [toFork ? toFork.backendRef : { name: backend, port: service.port }],
        },
      ],
    },
  };
}

/** How a sleeping composition's routes read: the `User-Agent` match of crawlers, if any. */
export interface SleepRouting {
  crawlerPattern: string | null;
}

/**
 * Crawlers and link unfurlers reach the baseline's entry without the routing key, so nothing they
 * ask for wakes a fork. More header matches than the keyed rule: it takes precedence.
 */
function crawlerRules(
  sleep: SleepRouting | null | undefined,
  pending: readonly unknown[],
  baselineEntry: { name: string; port: number },
) {
  if (!sleep?.crawlerPattern) return [];
  return [
    {
      matches: [
        { headers: [{ type: 'RegularExpression', name: 'User-Agent', value: sleep.crawlerPattern }] },
      ],
      ...(pending.length ? { filters: pending } : {}),
      backendRefs: [baselineEntry],
    },
  ];
}

/** The mesh route on an overridden component's Service: keyed requests to the fork, the rest to the baseline. */
export function meshRoute(input: {
  id: string;
  component: string;
  profile: ComponentProfile;
  baseline: Baseline;
  owner: OwnerReference;
  /** The fork sleeps: keyed requests go through the interceptor, which wakes it. */
  sleeps?: boolean;
}): ClusterObject {
  const { service } = input.profile;
  const toFork = input.sleeps
    ? throughInterceptor(forkHost(input.id, input.profile, input.baseline.namespace))
    : null;
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: {
      name: meshRouteName(input.id, input.component),
      namespace: input.baseline.namespace,
      labels: { ...compositionLabels(input.id), [Label.Component]: input.component },
      ownerReferences: [input.owner],
    },
    spec: {
      parentRefs: [{ group: '', kind: 'Service', name: service.name, port: service.port }],
      rules: [
        {
          matches: [
            { headers: [{ type: 'RegularExpression', name: 'baggage', value: baggageMatch(input.id) }] },
          ],
          ...(toFork ? { filters: [toFork.filter] } : {}),
          backendRefs: [
            toFork ? toFork.backendRef : { name: forkName(service.name, input.id), port: service.port },
          ],
        },
        { backendRefs: [{ name: service.name, port: service.port }] },
      ],
    },
  };
}
