/**
 * The objects that let a composition's forks sleep (docs/sleep.md), for KEDA and its HTTP add-on
 * (0.14+): per fork an InterceptorRoute (the interceptor routes the fork's own host to the fork's
 * Service and holds requests while it scales from zero) and a ScaledObject (minimum 0, cooldown the
 * baseline's `sleep.after`, woken by the interceptor and by messages on the fork's isolated queues),
 * and the ReferenceGrant that lets the preview's routes send to the interceptor's namespace.
 */
import type { Baseline, ComponentProfile } from '../catalog/schema.ts';
import {
  Annotation,
  type ClusterObject,
  forkName,
  Label,
  managedBy,
  type OwnerReference,
} from './objects.ts';

/** Where the add-on's chart installs its interceptor and external scaler (docs/deploy.md). */
export const kedaInterceptor = {
  namespace: 'keda',
  service: 'keda-add-ons-http-interceptor-proxy',
  port: 8080,
  scalerAddress: 'keda-add-ons-http-external-scaler.keda:9090',
} as const;

/** The host the interceptor knows a fork by: its Service's name, made unique per namespace. */
export function forkHost(id: string, profile: ComponentProfile, namespace: string): string {
  return `${forkName(profile.service.name, id)}.${namespace}.sleep.preview.internal`;
}

/** A route's backend and filter sending a request to `host` through the interceptor. */
export function throughInterceptor(host: string) {
  return {
    filter: { type: 'URLRewrite', urlRewrite: { hostname: host } },
    backendRef: {
      group: '',
      kind: 'Service',
      name: kedaInterceptor.service,
      namespace: kedaInterceptor.namespace,
      port: kedaInterceptor.port,
    },
  };
}

export interface SleepingForkInput {
  id: string;
  component: string;
  profile: ComponentProfile;
  baseline: Baseline;
  owner: OwnerReference;
  afterSeconds: number;
  /** The fork's isolated queues: a message on one wakes it. */
  queueUrls: readonly string[];
  /** The queues' region, and an endpoint only where they are not AWS's (the local stack). */
  sqs: { region: string; endpoint: string | null };
  /** Until when a wake command holds the fork up; null: nothing holds it. */
  awakeUntil: string | null;
}

function forkMetadata(input: SleepingForkInput) {
  return {
    name: forkName(input.profile.workload.name, input.id),
    namespace: input.baseline.namespace,
    labels: {
      [Label.ManagedBy]: managedBy,
      [Label.Composition]: input.id,
      [Label.Component]: input.component,
    },
    ownerReferences: [input.owner],
  };
}

/** The interceptor's route for the fork's host to the fork's Service. */
export function interceptorRoute(input: SleepingForkInput): ClusterObject {
  const { service } = input.profile;
  return {
    apiVersion: 'http.keda.sh/v1beta1',
    kind: 'InterceptorRoute',
    metadata: forkMetadata(input),
    spec: {
      target: { service: forkName(service.name, input.id), port: service.port },
      rules: [{ hosts: [forkHost(input.id, input.profile, input.baseline.namespace)] }],
      scalingMetric: { concurrency: { targetValue: 100 } },
    },
  };
}

/** The fork's scaling: 0 when idle for `afterSeconds`, up to the baseline's replicas on a request or message. */
export function scaledObject(input: SleepingForkInput): ClusterObject {
  const metadata = {
    ...forkMetadata(input),
    ...(input.awakeUntil ? { annotations: { [Annotation.AwakeUntil]: input.awakeUntil } } : {}),
  };
  const queueTriggers = input.queueUrls.map((queueURL) => ({
    type: 'aws-sqs-queue',
    metadata: {
      queueURL,
      awsRegion: input.sqs.region,
      queueLength: '1',
      activationQueueLength: '0',
      identityOwner: 'operator',
      ...(input.sqs.endpoint ? { awsEndpoint: input.sqs.endpoint } : {}),
    },
  }));
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata,
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: metadata.name },
      minReplicaCount: input.awakeUntil ? 1 : 0,
      maxReplicaCount: input.baseline.components[input.component]?.replicas ?? 1,
      cooldownPeriod: input.afterSeconds,
      triggers: [
        {
          type: 'external-push',
          metadata: { scalerAddress: kedaInterceptor.scalerAddress, interceptorRoute: metadata.name },
        },
        ...queueTriggers,
      ],
    },
  };
}

/**
 * Lets HTTPRoutes of `namespace` send to the interceptor. It lives in the interceptor's namespace,
 * so no composition owns it (owners are namespaced): every sleeping preview of the namespace shares
 * it, and applying it again changes nothing.
 */
export function interceptorGrant(namespace: string): ClusterObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1beta1',
    kind: 'ReferenceGrant',
    metadata: {
      name: `preview-routes-${namespace}`,
      namespace: kedaInterceptor.namespace,
      labels: { [Label.ManagedBy]: managedBy },
    },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace }],
      to: [{ group: '', kind: 'Service', name: kedaInterceptor.service }],
    },
  };
}

export const scaledObjectKind = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject' } as const;

/**
 * How a wake command holds a fork up, KEDA's own way (docs/sleep.md): a ScaledObject whose
 * `minReplicaCount` is above its target's replicas scales the target to it with no trigger active,
 * and once it is back to 0 KEDA scales to zero after `cooldownPeriod` from the last active trigger
 * (a held-up fork's last one is no later than the command, if nothing used it since). A JSON merge
 * patch: `until` null lets the fork sleep again and drops the annotation saying why it was held.
 */
export function holdAwakePatch(until: string | null): Record<string, unknown> {
  return {
    metadata: { annotations: { [Annotation.AwakeUntil]: until } },
    spec: { minReplicaCount: until ? 1 : 0 },
  };
}

/** Whether a fork's ScaledObject is held up until `until` (null: not held) as the patch above leaves it. */
export function holdsAwake(object: ClusterObject, until: string | null): boolean {
  const minimum = (object.spec as { minReplicaCount?: number } | undefined)?.minReplicaCount ?? 0;
  const annotated = object.metadata.annotations?.[Annotation.AwakeUntil] ?? null;
  return annotated === until && minimum === (until ? 1 : 0);
}
