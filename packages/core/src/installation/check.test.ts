/**
 * The evidence rules of the installation check, against an in-memory cluster: what makes each check
 * pass, fail or stay unknown, and how the verdict follows. (tests/installation.test.ts runs the same
 * checks against the local cluster through HTTP.)
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { nextProjectVersion, type ProjectVersion } from '../catalog/model.ts';
import { defaultNamespacePolicy } from '../catalog/namespaces.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import { ProjectManifest } from '../catalog/schema.ts';
import type { ClusterObject } from '../cluster/objects.ts';
import type { AccessRequest, ClusterPort } from '../cluster/ports.ts';
import { clusterRegistry } from '../cluster/registry.ts';
import { defaultSleepSettings } from '../compositions/sleep.ts';
import { ProblemError } from '../errors.ts';
import { parseOrThrow } from '../validation.ts';
import { check } from './check.ts';
import { accessRequests } from './permissions.ts';
import { InstallationSpec } from './schema.ts';

const manifest = v.parse(ProjectManifest, {
  name: 'shop',
  default_baseline: 'staging',
  components: ['web', 'api'].map((name) => ({
    name,
    workload: { name, container: 'app' },
    port: 8080,
    service: { name, port: 80 },
  })),
  baselines: [
    {
      name: 'staging',
      namespace: 'shop',
      cluster: 'eks-a',
      preview_domain: 'preview.example.com',
      entry_component: 'web',
      components: {
        web: { image: 'registry.example.com/shop/web:1' },
        api: { image: 'registry.example.com/shop/api:1' },
      },
    },
  ],
});

function catalogOf(versions: ProjectVersion[]): CatalogStore {
  return {
    readProject: async (name) => versions.find((p) => p.project === name) ?? null,
    readVersion: async () => null,
    listProjects: async () => ({
      items: versions.map((p) => ({ name: p.project }) as never),
      next_cursor: null,
    }),
    commit: async () => true,
    claimNamespaces: async () => [],
    heldNamespaces: async () => [],
    releaseNamespaces: async () => {},
  };
}

const shop = nextProjectVersion(null, manifest, '2026-01-01T00:00:00Z', 'v-1') as ProjectVersion;
const clock = { now: () => new Date('2026-11-25T12:00:00Z') };

const condition = (type: string, status: string, reason = type, observedGeneration = 1) => ({
  type,
  status,
  reason,
  message: `${type} ${status}`,
  observedGeneration,
});

function workload(name: string): ClusterObject[] {
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'shop' },
      spec: {
        selector: { matchLabels: { app: name } },
        template: { spec: { containers: [{ name: 'app', image: `registry.example.com/shop/${name}:1` }] } },
      },
      status: { availableReplicas: 1 },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'shop' },
      spec: { selector: { app: name }, ports: [{ port: 80 }] },
    },
  ];
}

const gateway = (overrides: Record<string, unknown> = {}): ClusterObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name: 'preview', namespace: 'svc-system', generation: 1 },
  spec: {
    gatewayClassName: 'istio',
    listeners: [
      {
        name: 'http',
        protocol: 'HTTP',
        port: 80,
        hostname: '*.example.com',
        allowedRoutes: { namespaces: { from: 'All' } },
      },
    ],
  },
  status: { conditions: [condition('Accepted', 'True'), condition('Programmed', 'True')] },
  ...overrides,
});

const gatewayClass = (supportedFeatures?: unknown): ClusterObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'GatewayClass',
  metadata: { name: 'istio', generation: 1 },
  spec: { controllerName: 'istio.io/gateway-controller' },
  status: {
    conditions: [condition('Accepted', 'True')],
    ...(supportedFeatures === undefined ? {} : { supportedFeatures }),
  },
});

const istioFeatures = ['Gateway', 'HTTPRoute', 'HTTPRouteResponseHeaderModification', 'ReferenceGrant'].map(
  (name) => ({ name }),
);

const meshRoute = (options: { regex?: boolean; accepted?: string; reason?: string } = {}): ClusterObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'preview-c-1-api', namespace: 'shop', generation: 1 },
  spec: {
    parentRefs: [{ group: '', kind: 'Service', name: 'api', port: 80 }],
    rules: [
      {
        matches: [
          {
            headers: [
              { type: options.regex === false ? 'Exact' : 'RegularExpression', name: 'baggage', value: 'x' },
            ],
          },
        ],
        backendRefs: [{ name: 'api-c-1', port: 80 }],
      },
    ],
  },
  status: {
    parents: [
      {
        parentRef: { group: '', kind: 'Service', name: 'api', port: 80 },
        controllerName: 'istio.io/gateway-controller',
        conditions: [condition('Accepted', options.accepted ?? 'True', options.reason ?? 'Accepted')],
      },
    ],
  },
});

const namespace: ClusterObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'shop', labels: { 'kubernetes.io/metadata.name': 'shop', team: 'shop' } },
  status: { phase: 'Active' },
};

interface FakeCluster {
  objects?: ClusterObject[];
  served?: string[] | null;
  deny?: (request: AccessRequest, groups: readonly string[] | undefined) => boolean;
  /** Overrides of single methods: a rejection, a call that never answers. */
  port?: Partial<ClusterPort>;
}

/** The HTTPRoute CRD, its `v1` allowing these header match types (null: a schemaless definition). */
function routeDefinition(types: string[] | null, version = 'v1'): ClusterObject {
  const list = (properties: Record<string, unknown>) => ({
    type: 'array',
    items: { type: 'object', properties },
  });
  const schema =
    types === null
      ? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
      : {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                rules: list({ matches: list({ headers: list({ type: { type: 'string', enum: types } }) }) }),
              },
            },
          },
        };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'httproutes.gateway.networking.k8s.io' },
    spec: { versions: [{ name: version, served: true, schema: { openAPIV3Schema: schema } }] },
  };
}

/** A cluster ready for previews, with this GatewayClass, where no mesh route was accepted yet. */
const routeless = (theClass = gatewayClass(istioFeatures)): ClusterObject[] => [
  namespace,
  ...workload('web'),
  ...workload('api'),
  gateway(),
  theClass,
  routeDefinition(['Exact', 'RegularExpression']),
];

/** A cluster where every check passes. */
const healthyObjects = (theClass?: ClusterObject): ClusterObject[] => [...routeless(theClass), meshRoute()];

function fakeCluster(fake: FakeCluster = {}): ClusterPort {
  const objects = fake.objects ?? healthyObjects();
  const find = (apiVersion: string, kind: string, ns: string, name: string) =>
    objects.find(
      (o) =>
        o.apiVersion === apiVersion &&
        o.kind === kind &&
        o.metadata.name === name &&
        (o.metadata.namespace ?? '') === ns,
    ) ?? null;
  const unused = async () => {
    throw new Error('not used by the installation check');
  };
  return {
    health: { name: 'cluster', check: unused },
    getDeployment: async (ns, name) => find('apps/v1', 'Deployment', ns, name) as never,
    getService: async (ns, name) => find('v1', 'Service', ns, name) as never,
    get: async (ref) => find(ref.apiVersion, ref.kind, ref.namespace, ref.name),
    apply: unused,
    mergePatch: unused,
    delete: unused,
    list: async (ns, kinds) =>
      objects.filter(
        (o) =>
          o.metadata.namespace === ns &&
          kinds.some((k) => k.apiVersion === o.apiVersion && k.kind === o.kind),
      ),
    listPods: unused,
    listDeployments: unused,
    listServices: unused,
    watchDeployments: unused,
    podLogs: unused,
    serverVersion: async () => ({ version: 'v1.32.1-eks-0', platform: 'linux/arm64' }),
    servedResources: async () =>
      fake.served === undefined ? ['gatewayclasses', 'gateways', 'httproutes', 'grpcroutes'] : fake.served,
    identity: async () => ({
      user: 'arn:aws:sts::1:assumed-role/api/s',
      groups: ['preview-composition-api'],
    }),
    reviewAccess: async (requests, subject) =>
      requests.map((r) => ({ allowed: !fake.deny?.(r, subject?.groups), reason: '' })),
    ...fake.port,
  };
}

async function checkWith(
  fake: FakeCluster = {},
  spec: unknown = {},
  versions = [shop],
  messageTopics: readonly string[] = ['orders'],
  clusters = new Map([['eks-a', fakeCluster(fake)]]),
) {
  const deps = {
    catalog: catalogOf(versions),
    clusters: clusterRegistry(clusters),
    clock,
    manifestLimits: {
      messageTopics,
      namespaces: defaultNamespacePolicy,
      clusters: [...clusters.keys()],
      previewDomains: ['preview.example.com'],
      clusterScopes: {},
    },
    forgeStore: noPolicies,
  };
  // The specification as the API's binding hands it: parsed by its schema.
  const report = await check(deps, parseOrThrow(InstallationSpec, spec), { checkTimeoutMs: 200 });
  const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
  return { report, byId, status: (id: string) => byId[id]?.status };
}

const noPolicies = {
  listPolicies: async () => ({ items: [], next_cursor: null }),
  repositoryOwner: async () => null,
};

describe('the catalog-clusters check', () => {
  it('fails a baseline applied before its cluster was scoped, or on a domain previews do not answer on', async () => {
    const { byId } = await checkWith();
    expect(byId['catalog-clusters']?.status).toBe('passed');
    const scoped = await check(
      {
        catalog: catalogOf([shop]),
        clusters: clusterRegistry(new Map([['eks-a', fakeCluster({})]])),
        clock,
        forgeStore: noPolicies,
        manifestLimits: {
          messageTopics: ['orders'],
          namespaces: defaultNamespacePolicy,
          clusters: ['eks-a'],
          previewDomains: ['elsewhere.example.com'],
          clusterScopes: { 'eks-a': { projects: ['outlet'], previewDomains: null } },
        },
      },
      {},
      { checkTimeoutMs: 200 },
    );
    const verdict = scoped.checks.find((c) => c.id === 'catalog-clusters');
    expect(verdict?.status).toBe('failed');
    expect(verdict?.message).toContain('cluster "eks-a" takes baselines of projects "outlet" only');
    expect(verdict?.message).toContain('preview domain "preview.example.com" is not one previews answer on');
  });
});

describe('the messaging check', () => {
  const withTopics = (topics: string[]) =>
    nextProjectVersion(
      null,
      {
        ...manifest,
        baselines: manifest.baselines.map((b) => ({
          ...b,
          messaging: { topics, routing_attribute: 'preview_route' },
        })),
      },
      '2026-01-01T00:00:00Z',
      'v-2',
    ) as ProjectVersion;

  it('passes when the stage grants every topic of the baseline', async () => {
    const { byId, report } = await checkWith({}, {}, [withTopics(['orders'])]);
    expect(byId['messaging:shop/staging']).toMatchObject({
      status: 'passed',
      evidence: { topics: ['orders'], granted: ['orders'], not_granted: [] },
    });
    expect(report.status).toBe('passed');
  });

  it('fails naming a topic the stage does not grant, without asking the cluster', async () => {
    const { byId, report } = await checkWith({}, {}, [withTopics(['orders', 'refunds'])], ['orders']);
    expect(byId['messaging:shop/staging']).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('the stage does not grant "refunds"'),
      evidence: { not_granted: ['refunds'] },
    });
    expect(report.status).toBe('failed');
  });

  it('is not run for a baseline without messaging', async () => {
    const { byId } = await checkWith();
    expect(byId['messaging:shop/staging']).toBeUndefined();
  });
});

describe('the gateway features check', () => {
  const objects = (features?: unknown) => healthyObjects(gatewayClass(features));

  it('passes when the GatewayClass lists HTTPRouteResponseHeaderModification, as objects or as plain names', async () => {
    for (const features of [istioFeatures, istioFeatures.map((f) => f.name)]) {
      const { byId } = await checkWith({ objects: objects(features) });
      expect(byId['gateway-features:shop/staging']).toMatchObject({
        status: 'passed',
        evidence: {
          gateway: 'svc-system/preview',
          gateway_class: 'istio',
          controller: 'istio.io/gateway-controller',
          supported_features: istioFeatures.map((f) => f.name),
        },
      });
    }
  });

  it('fails when the GatewayClass lists its features without it: the pending mark would be refused or dropped', async () => {
    const { byId, report } = await checkWith({
      objects: objects([{ name: 'Gateway' }, { name: 'HTTPRoute' }]),
    });
    expect(byId['gateway-features:shop/staging']).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('does not list HTTPRouteResponseHeaderModification'),
      evidence: { supported_features: ['Gateway', 'HTTPRoute'] },
    });
    expect(report.status).toBe('failed');
  });

  it('is unknown when the GatewayClass publishes no supportedFeatures', async () => {
    for (const features of [undefined, []]) {
      const { byId, report } = await checkWith({ objects: objects(features) });
      expect(byId['gateway-features:shop/staging']).toMatchObject({
        status: 'unknown',
        evidence: { supported_features: null },
      });
      expect(report.status).toBe('incomplete');
    }
  });

  it('fails naming a GatewayClass that does not exist', async () => {
    const { byId } = await checkWith({
      objects: [namespace, ...workload('web'), ...workload('api'), gateway(), meshRoute()],
    });
    expect(byId['gateway-features:shop/staging']).toMatchObject({
      status: 'failed',
      message: 'GatewayClass istio of Gateway svc-system/preview not found',
    });
  });
});

describe('installation check', () => {
  it('passes when every check has its evidence, one check per baseline component', async () => {
    const { report, byId } = await checkWith();
    expect(report.status).toBe('passed');
    expect(report.checked_at).toBe('2026-11-25T12:00:00.000Z');
    expect(report.checks.map((c) => c.id)).toEqual([
      'cluster:eks-a',
      'gateway-api:eks-a',
      'namespace:shop/staging',
      'workload:shop/staging/api',
      'workload:shop/staging/web',
      'gateway:shop/staging',
      'gateway-listener:shop/staging',
      'gateway-features:shop/staging',
      'mesh-route-schema:shop/staging',
      'mesh-route-controller:shop/staging',
      'permissions:shop/staging',
      'catalog-namespaces',
      'catalog-clusters',
      'repository-claims',
    ]);
    expect(report.checks.every((c) => c.status === 'passed')).toBe(true);
    expect(byId['cluster:eks-a']?.evidence).toEqual({
      cluster: 'eks-a',
      version: 'v1.32.1-eks-0',
      platform: 'linux/arm64',
    });
    expect(byId['mesh-route-controller:shop/staging']?.evidence.proof).toEqual({
      route: 'preview-c-1-api',
      parent: 'Service api',
      controller: 'istio.io/gateway-controller',
      regex: true,
    });
    expect(byId['permissions:shop/staging']?.evidence).toMatchObject({
      reviewed: accessRequests('shop').length,
      denied: [],
    });
  });

  it("reads the HTTPRoute definition's schema instead of dry-running a write", async () => {
    const { byId } = await checkWith();
    expect(byId['mesh-route-schema:shop/staging']).toMatchObject({
      status: 'passed',
      evidence: {
        definition: 'httproutes.gateway.networking.k8s.io',
        parent: 'Service web:80',
        header_match: { type: 'RegularExpression', name: 'baggage' },
        served_versions: ['v1'],
        header_match_types: ['Exact', 'RegularExpression'],
      },
    });
    const schemaless = await checkWith({ objects: [...routeless().slice(0, -1), routeDefinition(null)] });
    expect(schemaless.byId['mesh-route-schema:shop/staging']).toMatchObject({
      status: 'passed',
      evidence: { header_match_types: null },
    });
  });

  describe('mesh routing is proven only by a controller', () => {
    it('is unknown without any Service-parented route, so the verdict is incomplete', async () => {
      const { report, byId } = await checkWith({
        objects: routeless(),
      });
      expect(byId['mesh-route-controller:shop/staging']).toMatchObject({
        status: 'unknown',
        evidence: { service_parented_routes: 0 },
      });
      expect(byId['mesh-route-schema:shop/staging']?.status).toBe('passed');
      expect(report.status).toBe('incomplete');
    });

    it('is unknown when accepted routes use no RegularExpression match, or none is accepted yet', async () => {
      const base = routeless();
      expect(
        (await checkWith({ objects: [...base, meshRoute({ regex: false })] })).status(
          'mesh-route-controller:shop/staging',
        ),
      ).toBe('unknown');
      const noStatus = { ...meshRoute(), status: {} };
      expect(
        (await checkWith({ objects: [...base, noStatus] })).status('mesh-route-controller:shop/staging'),
      ).toBe('unknown');
    });

    it('ignores a condition written for an older generation of the route', async () => {
      const route = meshRoute();
      route.metadata.generation = 2;
      const { byId } = await checkWith({
        objects: [...routeless(), route],
      });
      expect(byId['mesh-route-controller:shop/staging']?.status).toBe('unknown');
    });

    it('fails when a controller refuses the route as UnsupportedValue', async () => {
      const { report, byId } = await checkWith({
        objects: [
          namespace,
          ...workload('web'),
          ...workload('api'),
          gateway(),
          meshRoute({ accepted: 'False', reason: 'UnsupportedValue' }),
        ],
      });
      expect(byId['mesh-route-controller:shop/staging']?.message).toContain('UnsupportedValue');
      expect(byId['mesh-route-controller:shop/staging']?.status).toBe('failed');
      expect(report.status).toBe('failed');
    });

    it('fails when the definition would refuse the route, and is unknown when it cannot be read', async () => {
      const withDefinition = (definition: ClusterObject) =>
        checkWith({ objects: [...routeless().slice(0, -1), meshRoute(), definition] });
      const exactOnly = await withDefinition(routeDefinition(['Exact']));
      expect(exactOnly.byId['mesh-route-schema:shop/staging']).toMatchObject({
        status: 'failed',
        message: expect.stringContaining('allows header match types Exact only'),
        evidence: { header_match_types: ['Exact'] },
      });
      expect(
        (await withDefinition(routeDefinition(['Exact'], 'v1beta1'))).byId['mesh-route-schema:shop/staging'],
      ).toMatchObject({
        status: 'failed',
        message: 'httproutes.gateway.networking.k8s.io does not serve v1, the version the worker writes',
      });
      const forbidden = await checkWith({
        port: {
          get: async () => {
            throw Object.assign(new Error('HTTP-Code: 403'), { code: 403, body: { message: 'forbidden' } });
          },
        },
      });
      expect(forbidden.status('mesh-route-schema:shop/staging')).toBe('unknown');
      const absent = await checkWith({ objects: [...routeless().slice(0, -1), meshRoute()] });
      expect(absent.status('mesh-route-schema:shop/staging')).toBe('unknown');
    });
  });

  describe('the Gateway', () => {
    it('fails when it is missing, and names where it came from', async () => {
      const { byId } = await checkWith(
        {},
        { targets: [{ project: 'shop', gateway: { namespace: 'edge', name: 'public' } }] },
      );
      expect(byId['gateway:shop/staging']).toMatchObject({
        status: 'failed',
        evidence: { gateway: 'edge/public', source: 'specification' },
      });
      expect(byId['gateway-listener:shop/staging']).toMatchObject({
        status: 'unknown',
        evidence: { depends_on: 'gateway:shop/staging' },
      });
    });

    it('fails when not Accepted, is unknown while no controller has reported on its generation', async () => {
      const refused = gateway({
        status: { conditions: [condition('Accepted', 'False', 'InvalidParameters')] },
      });
      const base = [namespace, ...workload('web'), ...workload('api'), meshRoute()];
      const a = await checkWith({ objects: [...base, refused] });
      expect(a.byId['gateway:shop/staging']?.message).toContain('not Accepted: InvalidParameters');
      expect(a.status('gateway:shop/staging')).toBe('failed');
      const silent = gateway({ status: {} });
      expect((await checkWith({ objects: [...base, silent] })).status('gateway:shop/staging')).toBe(
        'unknown',
      );
      const stale = gateway();
      stale.metadata.generation = 3;
      expect((await checkWith({ objects: [...base, stale] })).status('gateway:shop/staging')).toBe('unknown');
    });

    it('needs a listener whose hostname covers the preview domain and that admits the namespace', async () => {
      const base = [namespace, ...workload('web'), ...workload('api'), meshRoute()];
      const listener = (l: Record<string, unknown>) =>
        gateway({
          spec: {
            gatewayClassName: 'istio',
            listeners: [{ name: 'http', protocol: 'HTTP', port: 80, ...l }],
          },
        });
      const run = async (l: Record<string, unknown>) =>
        (await checkWith({ objects: [...base, listener(l)] })).byId['gateway-listener:shop/staging'];

      expect(
        (await run({ hostname: '*.other.com', allowedRoutes: { namespaces: { from: 'All' } } }))?.status,
      ).toBe('failed');
      expect(
        (await run({ hostname: 'web.preview.example.com', allowedRoutes: { namespaces: { from: 'All' } } }))
          ?.status,
      ).toBe('failed');
      expect((await run({}))?.message).toContain('namespace svc-system only');
      expect(
        (
          await run({
            allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'shop' } } } },
          })
        )?.status,
      ).toBe('passed');
      expect(
        (
          await run({
            allowedRoutes: {
              namespaces: {
                from: 'Selector',
                selector: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['shop'] }] },
              },
            },
          })
        )?.status,
      ).toBe('failed');
      expect(
        (await run({ allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'GRPCRoute' }] } }))
          ?.status,
      ).toBe('failed');
      expect(
        (await run({ hostname: '*.preview.example.com', allowedRoutes: { namespaces: { from: 'All' } } }))
          ?.status,
      ).toBe('passed');
    });
  });

  it('fails a baseline component whose Deployment, container, Service or port is missing', async () => {
    const [deployment, service] = workload('api') as [ClusterObject, ClusterObject];
    const noPort = { ...service, spec: { ports: [{ port: 8080 }] } };
    const { report, byId } = await checkWith({
      objects: [namespace, ...workload('web'), noPort, gateway(), meshRoute()],
    });
    expect(byId['workload:shop/staging/api']?.message).toBe(
      'Deployment shop/api not found; Service shop/api has no port 80 (it has: 8080)',
    );
    expect(byId['workload:shop/staging/web']?.status).toBe('passed');
    expect(report.status).toBe('failed');
    const otherContainer = {
      ...deployment,
      spec: {
        ...(deployment.spec as object),
        template: { spec: { containers: [{ name: 'main', image: 'x' }] } },
      },
    };
    const again = await checkWith({
      objects: [namespace, ...workload('web'), otherContainer, service, gateway(), meshRoute()],
    });
    expect(again.byId['workload:shop/staging/api']?.message).toContain('no container "app" (it has: main)');
  });

  it('reports a missing namespace once; what depends on it is not established', async () => {
    const { byId } = await checkWith({ objects: [gateway(), meshRoute()] });
    expect(byId['namespace:shop/staging']?.status).toBe('failed');
    expect(byId['workload:shop/staging/web']).toMatchObject({
      status: 'unknown',
      message: 'not established: namespace:shop/staging did not pass',
      evidence: { observed: { status: 'failed' } },
    });
  });

  describe('permissions', () => {
    it("reviews the worker's group, not the API's own identity, and fails naming each denied verb", async () => {
      const { byId } = await checkWith({
        deny: (r, groups) =>
          groups?.join() !== 'preview-composition-worker' ||
          (r.verb === 'delete' && r.resource === 'deployments') ||
          r.resource === 'httproutes',
      });
      expect(byId['permissions:shop/staging']).toMatchObject({
        status: 'failed',
        message: expect.stringContaining(
          "the worker's cluster identity (group preview-composition-worker) may not",
        ),
        evidence: {
          subject: 'group preview-composition-worker',
          denied: [
            'delete deployments.apps',
            'list httproutes.gateway.networking.k8s.io',
            'create httproutes.gateway.networking.k8s.io',
            'patch httproutes.gateway.networking.k8s.io',
            'delete httproutes.gateway.networking.k8s.io',
          ],
        },
      });
    });

    it('reviews the identity itself where the API and the worker share one (no API group)', async () => {
      const asked: (readonly string[] | undefined)[] = [];
      const { byId } = await checkWith({
        port: {
          identity: async () => ({ user: 'kind-admin', groups: ['system:masters', 'system:authenticated'] }),
          reviewAccess: async (requests, subject) => {
            asked.push(subject?.groups);
            return requests.map((r) => ({ allowed: r.verb !== 'watch', reason: '' }));
          },
        },
      });
      expect(asked).toEqual([undefined]);
      expect(byId['permissions:shop/staging']).toMatchObject({
        status: 'failed',
        message:
          'the cluster identity the API and the worker share (user kind-admin) may not, in namespace shop: watch deployments.apps',
        evidence: { subject: 'user kind-admin' },
      });
    });

    it('are unknown when the cluster cannot answer a review', async () => {
      const { report, byId } = await checkWith({
        port: {
          reviewAccess: async () => {
            throw Object.assign(new Error('HTTP-Code: 404'), {
              code: 404,
              reason: 'NotFound',
              body: { message: 'no such thing (Authorization: Bearer cluster-secret)' },
            });
          },
        },
      });
      expect(byId['permissions:shop/staging']).toMatchObject({
        status: 'unknown',
        message: 'could not ask the cluster: HTTP 404 NotFound',
      });
      expect(JSON.stringify(report)).not.toContain('cluster-secret');
      expect(report.status).toBe('incomplete');
    });
  });

  it('fails the Gateway API when it is not served; what needs it is not established, not failed twice', async () => {
    const { report, byId } = await checkWith({
      served: null,
      objects: [namespace, ...workload('web'), ...workload('api')],
    });
    expect(byId['gateway-api:eks-a']?.status).toBe('failed');
    expect(byId['gateway:shop/staging']).toMatchObject({
      status: 'unknown',
      message: 'not established: gateway-api:eks-a did not pass',
      evidence: { depends_on: 'gateway-api:eks-a', observed: { status: 'failed' } },
    });
    expect(byId['gateway-listener:shop/staging']?.evidence.depends_on).toBe('gateway-api:eks-a');
    expect(byId['mesh-route-controller:shop/staging']?.evidence.depends_on).toBe('gateway-api:eks-a');
    expect(byId['workload:shop/staging/web']?.status).toBe('passed');
    expect(report.status).toBe('failed');
    const partial = await checkWith({ served: ['gateways'] });
    expect(partial.byId['gateway-api:eks-a']?.message).toBe(
      'cluster "eks-a": gateway.networking.k8s.io/v1 does not serve httproutes',
    );
  });

  it('fails the cluster when its API server cannot be reached; nothing else is established', async () => {
    const refused = async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    };
    const { report } = await checkWith({
      port: {
        serverVersion: refused,
        servedResources: refused,
        identity: refused,
        get: refused,
        getDeployment: refused,
        getService: refused,
        list: refused,
        reviewAccess: refused,
      },
    });
    expect(report.checks[0]).toMatchObject({
      id: 'cluster:eks-a',
      status: 'failed',
      message: 'cluster "eks-a": the Kubernetes API server cannot be reached: fetch failed (ECONNREFUSED)',
    });
    const cluster = report.checks
      .slice(1)
      .filter((c) => !['catalog-namespaces', 'catalog-clusters', 'repository-claims'].includes(c.id));
    expect(cluster.every((c) => c.status === 'unknown' && c.evidence.depends_on)).toBe(true);
    expect(report.status).toBe('failed');
  });

  it('turns a call that never answers into unknown after the check timeout', async () => {
    const { byId } = await checkWith({ port: { reviewAccess: () => new Promise(() => {}) } });
    expect(byId['permissions:shop/staging']).toMatchObject({
      status: 'unknown',
      message: 'no answer from the cluster within 0.2 s',
    });
  });

  it('is incomplete when no baseline is registered', async () => {
    const { report } = await checkWith({}, {}, []);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['cluster:eks-a', 'passed'],
      ['gateway-api:eks-a', 'passed'],
      ['catalog', 'unknown'],
      ['catalog-namespaces', 'passed'],
      ['catalog-clusters', 'passed'],
      ['repository-claims', 'passed'],
    ]);
    expect(report.status).toBe('incomplete');
  });

  describe('the specification', () => {
    const refusal = async (spec: unknown) => {
      const error = await checkWith({}, spec).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProblemError);
      return error as ProblemError;
    };

    it('names unknown projects and baselines (422 unknown_reference)', async () => {
      const error = await refusal({
        targets: [{ project: 'nope' }, { project: 'shop', baselines: ['prod'] }],
      });
      expect(error.code).toBe('unknown_reference');
      expect(error.errors).toEqual([
        { path: '/targets/0/project', message: 'project "nope" is not registered' },
        { path: '/targets/1/baselines/0', message: 'baseline "prod" is not registered in project "shop"' },
      ]);
    });

    it('refuses a baseline listed twice, unknown fields and bad names (422 validation_failed)', async () => {
      expect(
        (await refusal({ targets: [{ project: 'shop' }, { project: 'shop', baselines: ['staging'] }] })).code,
      ).toBe('validation_failed');
      const unknownField = await refusal({ target: [] });
      expect(unknownField.errors[0]).toMatchObject({ path: '/target', message: 'unknown field "target"' });
      expect((await refusal({ targets: [{ project: 'Shop' }] })).errors[0]?.path).toBe('/targets/0/project');
    });

    it('checks only the baselines it names', async () => {
      const second = nextProjectVersion(
        null,
        {
          ...manifest,
          name: 'other',
          baselines: manifest.baselines.map((b) => ({ ...b, namespace: 'other' })),
        },
        '2026-01-01T00:00:00Z',
        'v-2',
      ) as ProjectVersion;
      const all = await checkWith({}, {}, [shop, second]);
      expect(all.report.checks.filter((c) => c.id.startsWith('namespace:')).map((c) => c.id)).toEqual([
        'namespace:shop/staging',
        'namespace:other/staging',
      ]);
      const one = await checkWith({}, { targets: [{ project: 'other' }] }, [shop, second]);
      expect(one.report.checks.filter((c) => c.id.startsWith('namespace:')).map((c) => c.id)).toEqual([
        'namespace:other/staging',
      ]);
    });
  });
});

describe('several clusters', () => {
  const refused = async () => {
    throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
  };
  const down = fakeCluster({ port: { serverVersion: refused, servedResources: refused, get: refused } });
  const outlet = nextProjectVersion(
    null,
    { ...manifest, name: 'outlet', baselines: manifest.baselines.map((b) => ({ ...b, cluster: 'eks-b' })) },
    '2026-01-01T00:00:00Z',
    'v-3',
  ) as ProjectVersion;
  const both = () =>
    new Map([
      ['eks-a', fakeCluster()],
      ['eks-b', down],
    ]);
  const ids = (report: { checks: { id: string }[] }) => report.checks.map((c) => c.id);

  it('checks every cluster, each baseline on its own, and says which one failed', async () => {
    const { report, byId } = await checkWith({}, {}, [shop, outlet], ['orders'], both());
    expect(byId['cluster:eks-a']?.status).toBe('passed');
    expect(byId['cluster:eks-b']).toMatchObject({
      status: 'failed',
      message: 'cluster "eks-b": the Kubernetes API server cannot be reached: fetch failed (ECONNREFUSED)',
      evidence: { cluster: 'eks-b' },
    });
    expect(byId['namespace:shop/staging']?.status).toBe('passed');
    expect(byId['namespace:outlet/staging']).toMatchObject({
      status: 'unknown',
      message: 'not established: cluster:eks-b did not pass',
    });
    expect(report.status).toBe('failed');
  });

  it('checks only the clusters the specification lists, and the baselines on them', async () => {
    const { report } = await checkWith({}, { clusters: ['eks-a'] }, [shop, outlet], ['orders'], both());
    expect(ids(report).filter((id) => id.includes('eks-b') || id.includes('outlet/'))).toEqual([]);
    expect(report.status).toBe('passed');
    const outletOnly = await checkWith({}, { clusters: ['eks-b'] }, [shop, outlet], ['orders'], both());
    expect(ids(outletOnly.report)).toContain('namespace:outlet/staging');
    expect(ids(outletOnly.report)).not.toContain('namespace:shop/staging');
  });

  it('refuses a cluster the stage does not know, and a target on a cluster it does not list', async () => {
    const unknownCluster = await checkWith({}, { clusters: ['eks-z'] }).catch((e: unknown) => e);
    expect(unknownCluster).toMatchObject({
      code: 'unknown_reference',
      errors: [
        {
          path: '/clusters/0',
          message: 'cluster "eks-z" is not one of this installation\'s clusters ("eks-a")',
        },
      ],
    });
    const elsewhere = await checkWith(
      {},
      { clusters: ['eks-a'], targets: [{ project: 'outlet' }] },
      [shop, outlet],
      ['orders'],
      both(),
    ).catch((e: unknown) => e);
    expect(elsewhere).toMatchObject({ code: 'validation_failed', errors: [{ path: '/clusters' }] });
  });

  it('fails a baseline’s cluster the stage does not know; nothing of that baseline is established', async () => {
    const { byId, report } = await checkWith({}, {}, [shop, outlet]);
    expect(byId['cluster:eks-b']).toMatchObject({
      status: 'failed',
      message: 'cluster "eks-b" is not one of this installation\'s clusters ("eks-a")',
    });
    expect(byId['workload:outlet/staging/web']?.message).toBe('not established: cluster:eks-b did not pass');
    expect(byId['workload:shop/staging/web']?.status).toBe('passed');
    expect(report.status).toBe('failed');
  });
});

describe('the catalog namespaces check', () => {
  const inNamespace = (project: string, namespace: string): ProjectVersion => {
    const spec = { ...shop.baselines.staging?.spec, namespace } as NonNullable<
      typeof shop.baselines.staging
    >['spec'];
    return { ...shop, project, baselines: { staging: { spec, revision: 1, hash: 'h' } } };
  };

  it('fails a namespace two projects use and one previews may not, naming each', async () => {
    const { byId } = await checkWith({}, { targets: [{ project: 'shop' }] }, [
      shop,
      inNamespace('outlet', shop.baselines.staging?.spec.namespace ?? ''),
      inNamespace('system', 'kube-system'),
    ]);
    expect(byId['catalog-namespaces']).toMatchObject({ status: 'failed' });
    expect(byId['catalog-namespaces']?.message).toContain('also to project "outlet"');
    expect(byId['catalog-namespaces']?.message).toContain('uses namespace "kube-system"');
  });
});

describe("KEDA's checks", () => {
  const sleepingCheck = async (
    sleep: { defaultAfterSeconds: number | null },
    port: Partial<ClusterPort> = {},
  ) => {
    const interceptor = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'keda-add-ons-http-interceptor-proxy', namespace: 'keda' },
      spec: { ports: [{ port: 8080 }] },
    };
    const served: Record<string, string[]> = {
      'keda.sh/v1alpha1': ['scaledobjects', 'scaledjobs'],
      'http.keda.sh/v1beta1': ['interceptorroutes'],
    };
    const cluster = fakeCluster({
      objects: [...healthyObjects(), interceptor],
      port: {
        servedResources: async (apiVersion) =>
          served[apiVersion] ?? ['gatewayclasses', 'gateways', 'httproutes'],
        ...port,
      },
    });
    const report = await check(
      {
        catalog: catalogOf([shop]),
        clusters: clusterRegistry(new Map([['eks-a', cluster]])),
        clock,
        forgeStore: noPolicies,
        manifestLimits: {
          messageTopics: ['orders'],
          namespaces: defaultNamespacePolicy,
          clusters: ['eks-a'],
          previewDomains: ['preview.example.com'],
          clusterScopes: {},
        },
        sleep: { ...defaultSleepSettings, ...sleep },
      },
      parseOrThrow(InstallationSpec, {}),
      { checkTimeoutMs: 200 },
    );
    return Object.fromEntries(report.checks.filter((c) => c.id.startsWith('keda')).map((c) => [c.id, c]));
  };

  it('are not run where no baseline sleeps', async () => {
    expect(await sleepingCheck({ defaultAfterSeconds: null })).toEqual({});
  });

  it("run on the cluster of a baseline the stage's default puts to sleep, and pass when KEDA is there", async () => {
    const checks = await sleepingCheck({ defaultAfterSeconds: 1800 });
    expect(checks['keda:eks-a']).toMatchObject({
      status: 'passed',
      evidence: { sleeping_baselines: ['shop/staging'] },
    });
    expect(checks['keda-interceptor:eks-a']).toMatchObject({ status: 'passed', evidence: { ports: [8080] } });
  });

  it('fail naming the missing CRD, and the interceptor Service without its port', async () => {
    const checks = await sleepingCheck(
      { defaultAfterSeconds: 1800 },
      {
        servedResources: async (apiVersion) =>
          apiVersion === 'keda.sh/v1alpha1' ? null : ['interceptorroutes'],
        getService: async (namespace, name) => ({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name, namespace },
          spec: { ports: [{ port: 80 }] },
        }),
      },
    );
    expect(checks['keda:eks-a']?.status).toBe('failed');
    expect(checks['keda:eks-a']?.message).toContain(
      'does not serve scaledobjects.keda.sh, which the sleeping baselines shop/staging need: install KEDA',
    );
    expect(checks['keda-interceptor:eks-a']).toMatchObject({ status: 'failed', evidence: { ports: [80] } });
  });
});
