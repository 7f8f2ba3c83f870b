/** Kubernetes objects as plain data: what the worker renders and the cluster port applies. No client types. */
import { createHash } from 'node:crypto';

interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  creationTimestamp?: string;
  deletionTimestamp?: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ClusterObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface Container {
  name: string;
  image: string;
  [field: string]: unknown;
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Container[]; [field: string]: unknown };
}

export interface Deployment extends ClusterObject {
  spec: {
    replicas?: number;
    selector: { matchLabels?: Record<string, string> };
    template: PodTemplate;
    progressDeadlineSeconds?: number;
    [field: string]: unknown;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: Condition[];
  };
}

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
}

export interface Service extends ClusterObject {
  spec: { selector?: Record<string, string>; ports?: ServicePort[]; [field: string]: unknown };
}

interface ContainerStatus {
  name: string;
  image: string;
  ready: boolean;
  restartCount: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    running?: { startedAt?: string };
    terminated?: { reason?: string };
  };
}

export interface Pod extends ClusterObject {
  spec?: { containers: Container[]; [field: string]: unknown };
  status?: {
    phase?: string;
    startTime?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
  };
}

export const Label = {
  Composition: 'preview.svc/composition',
  Component: 'preview.svc/component',
  ManagedBy: 'app.kubernetes.io/managed-by',
} as const;

export const managedBy = 'preview-composition-service';

/** The field manager of every server-side apply we do. */
export const fieldManager = 'preview-composition-service';

export const Annotation = {
  Generation: 'preview.svc/generation',
  BaselineWorkload: 'preview.svc/baseline-workload',
  /** On a fork's ScaledObject: until when a wake command holds it at one replica at least. */
  AwakeUntil: 'preview.svc/awake-until',
} as const;

export function refOf(object: ClusterObject): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name,
  };
}

export function condition(deployment: Deployment, type: string): Condition | undefined {
  return deployment.status?.conditions?.find((c) => c.type === type);
}

/** A Kubernetes name `<base>-<id>`, shortened with a hash when it would pass 63 characters. */
export function forkName(base: string, id: string): string {
  const name = `${base}-${id}`;
  if (name.length <= 63) return name;
  const hash = createHash('sha256').update(base).digest('hex').slice(0, 6);
  return `${base.slice(0, 63 - id.length - 8).replace(/-+$/, '')}-${hash}-${id}`;
}
