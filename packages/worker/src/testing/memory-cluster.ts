/**
 * A Kubernetes cluster in memory, for the worker's unit tests: objects by kind, namespace and name,
 * equality label selectors, a uid per object and garbage collection of what an object owns, and a
 * Deployment controller that rolls a Deployment out at once, or never (`stall`).
 */
import type { Cluster } from '@svc/core';

type Deployment = Cluster.Deployment;
type ClusterObject = Cluster.ClusterObject;

const refKey = (ref: Cluster.ObjectRef) => `${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`;
const copy = <T>(value: T): T => structuredClone(value);

function matches(object: ClusterObject, selector: string): boolean {
  return selector
    .split(',')
    .filter(Boolean)
    .every((term) => {
      const [key = '', value] = term.split('=');
      return object.metadata.labels?.[key] === value;
    });
}

/** The status the controller gives a Deployment: rolled out, or stuck with none of its replicas available. */
function controlled(deployment: Deployment, stalled: boolean): Deployment {
  const replicas = deployment.spec.replicas ?? 1;
  const generation = deployment.metadata.generation ?? 1;
  return {
    ...deployment,
    status: {
      observedGeneration: generation,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: stalled ? 0 : replicas,
      availableReplicas: stalled ? 0 : replicas,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: stalled ? 'ReplicaSetUpdated' : 'NewReplicaSetAvailable',
        },
      ],
    },
  };
}

export interface MemoryCluster extends Cluster.ClusterPort {
  /** Objects of a kind, as stored. */
  objects(kind: string): ClusterObject[];
  /** Deployments applied from now on never become available. */
  stall(): void;
  /** The next call of `method` fails with `error` (a cluster that refuses or drops a request). */
  failNext(method: 'apply' | 'delete' | 'watchDeployments', error: Error): void;
  /** Every call of the port fails with `error` from now on (a cluster that is down); null: it is back. */
  down(error: Error | null): void;
}

interface State {
  stored: Map<string, ClusterObject>;
  failures: Map<string, Error>;
  down: Error | null;
  stalled: boolean;
  uids: number;
}

const refOf = (object: ClusterObject): Cluster.ObjectRef => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  namespace: object.metadata.namespace ?? '',
  name: object.metadata.name,
});

/** Stores the object as the API server would: its uid kept, its generation moved on, a Deployment controlled. */
function put(state: State, object: ClusterObject): ClusterObject {
  const key = refKey(refOf(object));
  const before = state.stored.get(key);
  const metadata = {
    ...object.metadata,
    uid: before?.metadata.uid ?? `uid-${++state.uids}`,
    generation: (before?.metadata.generation ?? 0) + 1,
  };
  const next = { ...copy(object), metadata };
  const written = object.kind === 'Deployment' ? controlled(next as Deployment, state.stalled) : next;
  state.stored.set(key, written);
  return copy(written);
}

/** RFC 7386: objects merge, a null removes the field, anything else replaces it. */
function mergePatched(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const merged: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete merged[field];
    else merged[field] = mergePatched(merged[field], value);
  }
  return merged;
}

/** Removes the object and, as the garbage collector would, everything it owns. */
function remove(state: State, key: string): void {
  const object = state.stored.get(key);
  state.stored.delete(key);
  if (!object?.metadata.uid) return;
  for (const [ownedKey, owned] of state.stored) {
    if (owned.metadata.ownerReferences?.some((owner) => owner.uid === object.metadata.uid))
      remove(state, ownedKey);
  }
}

type Reads =
  | 'getDeployment'
  | 'getService'
  | 'get'
  | 'list'
  | 'listPods'
  | 'listDeployments'
  | 'listServices';

/** Throws the failure `failNext` set for `method`, once. */
function failIfAsked(state: State, method: string): void {
  const error = state.failures.get(method);
  state.failures.delete(method);
  if (error) throw error;
}

function reads(state: State): Pick<Cluster.ClusterPort, Reads | 'watchDeployments'> {
  const { stored } = state;
  const inNamespace = (namespace: string, selector: string) =>
    [...stored.values()].filter((o) => o.metadata.namespace === namespace && matches(o, selector));
  const ofKind = <T extends ClusterObject>(kind: string, namespace: string, selector: string) =>
    copy(inNamespace(namespace, selector).filter((o) => o.kind === kind) as T[]);
  const named = <T extends ClusterObject>(ref: Cluster.ObjectRef) =>
    copy((stored.get(refKey(ref)) as T) ?? null);
  return {
    getDeployment: async (namespace, name) =>
      named({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name }),
    getService: async (namespace, name) => named({ apiVersion: 'v1', kind: 'Service', namespace, name }),
    get: async (ref) => named(ref),
    list: async (namespace, kinds, selector) =>
      copy(inNamespace(namespace, selector).filter((o) => kinds.some((k) => k.kind === o.kind))),
    listPods: async (namespace, selector) => ofKind('Pod', namespace, selector),
    listDeployments: async (namespace, selector) => ofKind('Deployment', namespace, selector),
    listServices: async (namespace, selector) => ofKind('Service', namespace, selector),
    async watchDeployments(namespace, selector, done, timeoutMs) {
      failIfAsked(state, 'watchDeployments');
      const seen = ofKind<Deployment>('Deployment', namespace, selector);
      // Nothing changes in memory while the watch waits: it ends done, or at its bound.
      if (!done(seen)) await new Promise((resolve) => setTimeout(resolve, timeoutMs));
      return seen;
    },
  };
}

const unused = (what: string) => () => Promise.reject(new Error(`the worker's steps do not use ${what}`));

export function memoryCluster(seed: readonly ClusterObject[] = []): MemoryCluster {
  const state: State = { stored: new Map(), failures: new Map(), down: null, stalled: false, uids: 0 };
  for (const object of seed) put(state, object);
  const port: MemoryCluster = {
    ...reads(state),
    health: {
      name: 'kubernetes',
      check: async () => {
        if (state.down) throw state.down;
      },
    },
    objects: (kind) => copy([...state.stored.values()].filter((o) => o.kind === kind)),
    stall() {
      state.stalled = true;
    },
    failNext(method, error) {
      state.failures.set(method, error);
    },
    async apply(object) {
      failIfAsked(state, 'apply');
      return put(state, object);
    },
    async mergePatch(ref, patch) {
      const before = state.stored.get(refKey(ref));
      return before ? put(state, mergePatched(before, patch) as ClusterObject) : null;
    },
    async delete(ref) {
      failIfAsked(state, 'delete');
      remove(state, refKey(ref));
    },
    podLogs: unused('pod logs'),
    serverVersion: unused('the server version'),
    servedResources: unused('discovery'),
    identity: unused('identities'),
    reviewAccess: unused('access reviews'),
    down(error) {
      state.down = error;
    },
  };
  const controls = new Set<PropertyKey>(['objects', 'stall', 'failNext', 'down']);
  return new Proxy(port, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || controls.has(key)) return value;
      return (...args: unknown[]) => (state.down ? Promise.reject(state.down) : value(...args));
    },
  });
}
