import type { DependencyCheck } from '../health/report.ts';
import type { ClusterObject, Deployment, ObjectRef, Pod, Service } from './objects.ts';

export interface LogOptions {
  container: string;
  tailLines: number;
  sinceSeconds: number | null;
  limitBytes: number;
  previous: boolean;
}

/** Kinds a composition creates, for listing what is left of one. */
export const CompositionKinds = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' },
] as const;

/** The API server's build, from its `/version`. */
interface ServerVersion {
  /** `gitVersion`, e.g. `v1.32.0-eks-1234567`. */
  version: string;
  platform: string;
}

/** One access review's question: may the identity do `verb` on `resource` in `namespace`? */
export interface AccessRequest {
  verb: string;
  /** API group; `''` is the core group. */
  group: string;
  resource: string;
  subresource?: string;
  namespace: string;
}

interface AccessAnswer {
  allowed: boolean;
  /** The authorizer's reason, often empty. */
  reason: string;
}

/**
 * What the service needs from a Kubernetes cluster. Implemented with @kubernetes/client-node in
 * packages/kube; every call retries transient failures itself, so callers see only lasting ones.
 */
export interface ClusterPort {
  readonly health: DependencyCheck;
  getDeployment(namespace: string, name: string): Promise<Deployment | null>;
  getService(namespace: string, name: string): Promise<Service | null>;
  get(ref: ObjectRef): Promise<ClusterObject | null>;
  /** Server-side apply with our one field manager; answers the objects as stored. */
  apply(object: ClusterObject): Promise<ClusterObject>;
  /**
   * A JSON merge patch (RFC 7386: a null removes a field) of an existing object, with our field
   * manager; null when the object is absent.
   */
  mergePatch(ref: ObjectRef, patch: Record<string, unknown>): Promise<ClusterObject | null>;
  /** Deletes if present (absent is fine); owned objects follow by garbage collection. */
  delete(ref: ObjectRef, propagation?: 'Background' | 'Foreground'): Promise<void>;
  /** Objects of the given kinds in a namespace matching a label selector. */
  list(
    namespace: string,
    kinds: readonly { apiVersion: string; kind: string }[],
    labelSelector: string,
  ): Promise<ClusterObject[]>;
  /** `cached`: from the API server's watch cache, possibly a moment behind (a recheck's read). */
  listPods(namespace: string, labelSelector: string, options?: { cached?: boolean }): Promise<Pod[]>;
  listDeployments(
    namespace: string,
    labelSelector: string,
    options?: { cached?: boolean },
  ): Promise<Deployment[]>;
  listServices(namespace: string, labelSelector: string): Promise<Service[]>;
  /**
   * Watches Deployments matching the selector until `done` says so or `timeoutMs` passes; answers
   * the last state seen. This is how a step waits without a timer.
   */
  watchDeployments(
    namespace: string,
    labelSelector: string,
    done: (deployments: Deployment[]) => boolean,
    timeoutMs: number,
  ): Promise<Deployment[]>;
  podLogs(namespace: string, pod: string, options: LogOptions): Promise<string>;
  /** The API server's `/version`; rejects when it cannot be reached. */
  serverVersion(): Promise<ServerVersion>;
  /**
   * Resource names served under an apiVersion (`gateway.networking.k8s.io/v1`), read from discovery
   * afresh; null when the group version is not served at all.
   */
  servedResources(apiVersion: string): Promise<string[] | null>;
  /** Who the adapter's identity is (a SelfSubjectReview); null when the cluster cannot say (not served). */
  identity(): Promise<{ user: string; groups: string[] } | null>;
  /**
   * Access reviews, one answer per request: of our own identity (SelfSubjectAccessReviews), or of
   * the identities in `subject.groups` (LocalSubjectAccessReviews in each request's namespace).
   * Rejects when the cluster cannot answer.
   */
  reviewAccess(
    requests: readonly AccessRequest[],
    subject?: { groups: readonly string[] },
  ): Promise<AccessAnswer[]>;
}
