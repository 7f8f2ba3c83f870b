// Wires the local cluster together: storage, the API server, the controllers and (part 2) the
// preview gateway.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiHandler } from './api/http-server.ts';
import { deepEqual } from './api/json.ts';
import { Api } from './api/operations.ts';
import { loadSnapshot, Persistence } from './api/persistence.ts';
import { Registry, type ResourceDeclaration } from './api/registry.ts';
import { CRD_GROUP, CRD_RESOURCE, servedDefinitions } from './api/served-definitions.ts';
import { Store } from './api/store.ts';
import { WatchHub } from './api/watch.ts';
import { ensureBootstrapPolicy } from './auth/bootstrap-policy.ts';
import { type LocalUser, tokenAuthenticator, unauthenticatedAdmin } from './auth/identity.ts';
import { RbacAuthorizer } from './auth/rbac.ts';
import { CrdController } from './controllers/crd-controller.ts';
import { DeploymentController } from './controllers/deployment-controller.ts';
import { EndpointsController } from './controllers/endpoints-controller.ts';
import { EventRecorder } from './controllers/events.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import {
  type HoldLimits,
  interceptorService,
  Keda,
  kedaResources,
  sqsQueueDepth,
} from './controllers/keda.ts';
import { Kubelet } from './controllers/kubelet.ts';
import { NamespaceController } from './controllers/namespace-controller.ts';
import { PodLogs } from './controllers/pod-logs.ts';
import { ReplicaSetController } from './controllers/replicaset-controller.ts';
import { Faults } from './faults.ts';
import { createGatewayHandler } from './gateway/gateway-server.ts';
import { GATEWAY_CLASS, Mesh } from './gateway/mesh.ts';
import { RouteIndex } from './gateway/route-index.ts';
import { CONTROLLER_NAME, RouteStatusController } from './gateway/route-status.ts';
import { GATEWAY_GROUP } from './gateway/routes.ts';
import { kubeconfigYaml } from './kubeconfig.ts';

export interface LocalClusterOptions {
  /** Interface to listen on; default '127.0.0.1'. */
  host?: string;
  /** API server port; 0 (the default) picks a free one. */
  port?: number;
  /** Preview gateway port; 0 (the default) picks a free one. The local stack uses 8082. */
  gatewayPort?: number;
  /** Persist state in this directory (a restart keeps it); absent = in memory only. */
  dataDir?: string;
  /** How long a healthy virtual pod takes to become Ready; default 1000 ms. */
  podReadyDelayMs?: number;
  /**
   * The identities clients authenticate as, each by its bearer token. With any, every request is
   * authorized by RBAC (the cluster's Roles, ClusterRoles and their bindings; `system:masters` may
   * do anything), a request without a token is `system:anonymous` and an unknown token is a 401.
   * Absent or empty: no authentication, every request may do anything.
   */
  users?: readonly LocalUser[];
  /** Preview host suffix served by the gateway; default 'preview.localhost'. */
  previewDomain?: string;
  /** Extra types to store generically (CustomResourceDefinitions also work at run time). */
  resources?: ResourceDeclaration[];
  /** Time a `-slow` image takes to become Ready; default 30 000 ms. */
  slowReadyMs?: number;
  /** First CrashLoopBackOff delay (doubling, capped at 30×); default 10 000 ms. */
  crashBackoffMs?: number;
  /** First ImagePullBackOff delay (doubling, capped at 30×); default 10 000 ms. */
  imagePullBackoffMs?: number;
  /** Interval of BOOKMARK events on watches that allow them; default 5 000 ms. */
  bookmarkIntervalMs?: number;
  /** Changes kept for watch resumption before clients get 410 Gone; default 10 000. */
  watchHistory?: number;
  /** The KEDA interceptor's hold while a sleeping workload wakes (default 1000 requests, 16 MiB, 20 s). */
  interceptorHold?: Partial<HoldLimits>;
  /** How often the KEDA stand-in looks at its ScaledObjects' triggers; default 250 ms. */
  kedaTickMs?: number;
}

export interface LocalCluster {
  /** API server URL, e.g. http://127.0.0.1:PORT */
  readonly url: string;
  /** Preview gateway URL, e.g. http://127.0.0.1:GWPORT */
  readonly gatewayUrl: string;
  /**
   * A kubeconfig (YAML) with cluster, user and context, all named `name` (default 'local'), whose
   * user presents the token of the cluster's user named `user` (default: the first; none without users).
   */
  kubeconfig(name?: string, user?: string): string;
  /** Closes servers and watches, stops controllers and flushes persistence. */
  stop(): Promise<void>;
}

const SYSTEM_NAMESPACES = [
  'default',
  'kube-system',
  'kube-public',
  'kube-node-lease',
  'svc-system',
  interceptorService.namespace,
];

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function urlFor(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function bootstrap(api: Api): void {
  const namespaces = api.rt('', 'namespaces');
  for (const name of SYSTEM_NAMESPACES) {
    if (!api.tryGet(namespaces, undefined, name))
      api.create(namespaces, undefined, { metadata: { name } }, { fieldManager: 'local-cluster' });
  }
  const services = api.rt('', 'services');
  if (!api.tryGet(services, interceptorService.namespace, interceptorService.name)) {
    // The add-on's interceptor: no pods; the gateway serves it (controllers/keda.ts).
    api.create(
      services,
      interceptorService.namespace,
      {
        metadata: { name: interceptorService.name, namespace: interceptorService.namespace },
        spec: {
          ports: [{ name: 'proxy', port: interceptorService.port, targetPort: interceptorService.port }],
        },
      },
      { fieldManager: 'local-cluster' },
    );
  }
  const nodes = api.rt('', 'nodes');
  if (!api.tryGet(nodes, undefined, 'local-node')) {
    const node = api.create(
      nodes,
      undefined,
      {
        metadata: {
          name: 'local-node',
          labels: {
            'kubernetes.io/hostname': 'local-node',
            'kubernetes.io/os': 'linux',
            'node-role.kubernetes.io/control-plane': '',
          },
        },
        spec: { podCIDR: '10.244.0.0/16' },
      },
      { fieldManager: 'local-cluster' },
    );
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    api.writeStatus(
      nodes,
      node,
      {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'virtual kubelet is posting ready status',
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          },
        ],
        addresses: [
          { type: 'InternalIP', address: '127.0.0.1' },
          { type: 'Hostname', address: 'local-node' },
        ],
        capacity: { cpu: '64', memory: '256Gi', pods: '10000' },
        allocatable: { cpu: '64', memory: '256Gi', pods: '10000' },
        nodeInfo: {
          kubeletVersion: 'v1.32.0-local',
          containerRuntimeVersion: 'virtual://1.0',
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
      },
      'kubelet',
    );
  }
}

/** Creates the Gateway API's CustomResourceDefinitions, or brings a restored copy up to date. */
function ensureServedDefinitions(api: Api): void {
  const crds = api.rt(CRD_GROUP, CRD_RESOURCE);
  for (const definition of servedDefinitions()) {
    const name = definition.metadata.name ?? '';
    const existing = api.tryGet(crds, undefined, name);
    if (!existing) api.create(crds, undefined, definition, { fieldManager: 'local-cluster' });
    else if (!deepEqual(existing.spec, definition.spec)) {
      api.update(
        crds,
        undefined,
        name,
        { ...existing, spec: definition.spec },
        { fieldManager: 'local-cluster' },
      );
    }
  }
}

/** The Gateway that public preview routes attach to: `svc-system/preview`, class `local`. */
function ensureGateway(api: Api, previewDomain: string, port: number): void {
  const classes = api.rt(GATEWAY_GROUP, 'gatewayclasses');
  if (!api.tryGet(classes, undefined, GATEWAY_CLASS)) {
    api.create(
      classes,
      undefined,
      {
        metadata: { name: GATEWAY_CLASS },
        spec: { controllerName: CONTROLLER_NAME, description: 'The local preview gateway' },
      },
      { fieldManager: 'local-cluster' },
    );
  }
  const gateways = api.rt(GATEWAY_GROUP, 'gateways');
  const spec = {
    gatewayClassName: GATEWAY_CLASS,
    listeners: [
      {
        name: 'http',
        protocol: 'HTTP',
        port,
        hostname: `*.${previewDomain}`,
        allowedRoutes: { namespaces: { from: 'All' } },
      },
    ],
  };
  const existing = api.tryGet(gateways, 'svc-system', 'preview');
  if (!existing) {
    api.create(
      gateways,
      'svc-system',
      { metadata: { name: 'preview', namespace: 'svc-system' }, spec },
      { fieldManager: 'local-cluster' },
    );
  } else {
    api.patch(
      gateways,
      'svc-system',
      'preview',
      'application/merge-patch+json',
      { spec },
      { fieldManager: 'local-cluster' },
    );
  }
}

/** The token of the user named `name` (default the first); refused for a user the cluster does not have. */
function tokenOf(users: readonly LocalUser[], name: string | undefined): string | undefined {
  if (name === undefined) return users[0]?.token;
  const user = users.find((u) => u.name === name);
  if (!user) throw new Error(`the cluster has no user "${name}"`);
  return user.token;
}

/** Starts the API server, its controllers and the preview gateway. */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const host = options.host ?? '127.0.0.1';
  const registry = new Registry([...kedaResources, ...(options.resources ?? [])]);
  const store = new Store(options.watchHistory ?? 10_000);
  if (options.dataDir) {
    const snapshot = loadSnapshot(options.dataDir);
    if (snapshot) {
      store.restore(snapshot, (table) => {
        const slash = table.indexOf('/');
        const group = table.slice(0, slash);
        const resource = table.slice(slash + 1);
        return registry.all().find((t) => t.group === group && t.resource === resource);
      });
    }
  }
  const api = new Api(registry, store);
  const crds = new CrdController(api);
  const authorizer = new RbacAuthorizer(api, store);
  const authenticator = options.users?.length ? tokenAuthenticator(options.users) : undefined;
  bootstrap(api);
  ensureBootstrapPolicy(api);
  ensureServedDefinitions(api);
  const hub = new WatchHub(store, options.bookmarkIntervalMs ?? 5000);
  const logs = new PodLogs();
  const faults = new Faults();
  const events = new EventRecorder(api);
  const gc = new GarbageCollector(api);
  const namespaces = new NamespaceController(api);
  const kubelet = new Kubelet(api, logs, events, {
    podReadyDelayMs: options.podReadyDelayMs ?? 1000,
    slowReadyMs: options.slowReadyMs ?? 30_000,
    crashBackoffMs: options.crashBackoffMs ?? 10_000,
    imagePullBackoffMs: options.imagePullBackoffMs ?? 10_000,
    isFrozen: (pod) => faults.isFrozen(pod),
  });
  const replicaSets = new ReplicaSetController(api, events);
  const deployments = new DeploymentController(api, events);
  const endpoints = new EndpointsController(api);
  const keda = new Keda(api, {
    queueDepth: sqsQueueDepth,
    ...(options.interceptorHold ? { limits: options.interceptorHold } : {}),
    ...(options.kedaTickMs ? { tickMs: options.kedaTickMs } : {}),
  });
  const routeIndex = new RouteIndex(api);
  const routeStatus = new RouteStatusController(api, routeIndex);
  faults.connect({
    closeWatches: (resource) => hub.closeAll(resource),
    compact: () => store.compact(),
    freezeChanged: () => kubelet.resync(),
  });
  const persistence = options.dataDir ? new Persistence(options.dataDir, store) : undefined;

  let apiPort = 0;
  const server = createServer(
    createApiHandler({
      api,
      hub,
      logs,
      authenticate: authenticator
        ? (header) => authenticator.authenticate(header)
        : () => unauthenticatedAdmin,
      authorize: (user, request) => authorizer.authorize(user, request),
      rulesFor: (user, namespace) => authorizer.rulesFor(user, namespace),
      serverAddress: () => `${host}:${apiPort}`,
      beforeRequest: (info) => faults.beforeApiRequest(info),
      faultDenial: (attributes) => faults.authorize(attributes),
      admin: (req, res, body) => faults.handle(req, res, body),
    }),
  );
  server.keepAliveTimeout = 30_000;
  apiPort = await listen(server, options.port ?? 0, host);
  const url = urlFor(host, apiPort);

  const previewDomain = (options.previewDomain ?? 'preview.localhost').toLowerCase();
  const mesh = new Mesh(
    api,
    faults,
    (pod, line) => kubelet.writeLog(pod, line),
    previewDomain,
    routeIndex,
    keda,
  );
  const gateway = createServer(createGatewayHandler(mesh));
  gateway.keepAliveTimeout = 30_000;
  let gatewayPort: number;
  try {
    gatewayPort = await listen(gateway, options.gatewayPort ?? 0, host);
  } catch (error) {
    server.close();
    throw error;
  }
  const gatewayUrl = urlFor(host, gatewayPort);
  ensureGateway(api, previewDomain, gatewayPort);

  let stopped: Promise<void> | undefined;
  return {
    url,
    gatewayUrl,
    kubeconfig: (name, user) => kubeconfigYaml(url, tokenOf(options.users ?? [], user), name),
    stop() {
      stopped ??= (async () => {
        const controllers = [
          keda,
          routeStatus,
          routeIndex,
          deployments,
          replicaSets,
          endpoints,
          kubelet,
          namespaces,
          gc,
          crds,
          events,
        ];
        for (const c of controllers) c.stop();
        hub.stop();
        for (const s of [server, gateway]) s.closeAllConnections();
        await Promise.all(
          [server, gateway].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
        );
        await persistence?.close();
      })();
      return stopped;
    },
  };
}
