/**
 * The installation check: a read-only preflight of the clusters the server is configured with,
 * each baseline the specification names on its own cluster. Every check runs at once under a time bound
 * (probes.ts has each one's rules); a question the cluster did not answer is unknown, never passed,
 * and a check whose prerequisite failed is unknown too ("not established"), keeping what it saw.
 * Nothing is written: the only write-shaped call is a server-side dry run.
 */

import type { ProjectVersion } from '../catalog/model.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import type { Baseline, ComponentProfile } from '../catalog/schema.ts';
import type { ManifestLimits } from '../catalog/validate.ts';
import { CheckStatus } from '../checks/model.ts';
import type { ClusterObject } from '../cluster/objects.ts';
import type { ClusterPort } from '../cluster/ports.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import { defaultSleepSettings, type SleepSettings, sleepAfter } from '../compositions/sleep.ts';
import { ErrorCode, type FieldError, ProblemError, validationFailed } from '../errors.ts';
import { maxPageSize } from '../paging.ts';
import { catalogClustersVerdict, catalogNamespacesVerdict } from './catalog-namespaces.ts';
import { interceptorCheck, kedaCrdsCheck } from './keda.ts';
import { meshSchemaCheck } from './mesh-schema.ts';
import type { InstallationDeps } from './ports.ts';
import {
  clusterCheck,
  describeFailure,
  failed,
  gatewayApiCheck,
  gatewayApiVersion,
  gatewayCheck,
  gatewayFeaturesCheck,
  listenerCheck,
  meshControllerVerdict,
  messagingCheck,
  namespaceCheck,
  type Outcome,
  permissionsCheck,
  type Target,
  unknown,
  workloadCheck,
} from './probes.ts';
import { repositoryClaimsVerdict } from './repository-claims.ts';
import {
  type GatewayRef,
  type InstallationCheckView,
  type InstallationReport,
  type InstallationSpec,
  verdict,
} from './schema.ts';

/** Each check gets this long; all run at once, so the whole check stays inside the API's 29 s. */
const defaultCheckTimeoutMs = 8000;

interface Job {
  id: string;
  /** Checks that must not have failed for this one's failure or unknown to mean anything. */
  dependsOn: readonly string[];
  run(): Promise<Outcome>;
}

/**
 * Runs every check of the specification against the clusters and answers the report. An unknown
 * project, baseline or cluster in the specification is a 422 before anything is asked of a cluster.
 */
export async function check(
  deps: InstallationDeps,
  spec: InstallationSpec,
  options: { checkTimeoutMs?: number } = {},
): Promise<InstallationReport> {
  const clusters = checkedClusters(deps.clusters, spec);
  const targets = onClusters(await resolveTargets(deps.catalog, spec), spec);
  const checkedAt = deps.clock.now().toISOString();
  const jobs: Job[] = [
    ...planChecks(deps.clusters, clusters, targets, deps.manifestLimits, spec),
    ...sleepJobs(deps.clusters, targets, deps.sleep ?? defaultSleepSettings),
    {
      id: 'catalog-namespaces',
      dependsOn: [],
      run: async () =>
        catalogNamespacesVerdict(await everyProject(deps.catalog), deps.manifestLimits.namespaces),
    },
    {
      id: 'catalog-clusters',
      dependsOn: [],
      run: async () => catalogClustersVerdict(await everyProject(deps.catalog), deps.manifestLimits),
    },
    { id: 'repository-claims', dependsOn: [], run: () => repositoryClaimsVerdict(deps.forgeStore) },
  ];
  const timeoutMs = options.checkTimeoutMs ?? defaultCheckTimeoutMs;
  const outcomes = await Promise.all(jobs.map((job) => settle(job, timeoutMs)));
  const checks = withPrerequisites(jobs, outcomes);
  return { status: verdict(checks), checked_at: checkedAt, checks };
}

function targetOf(
  project: string,
  baseline: Baseline,
  components: Record<string, { spec: ComponentProfile }>,
  gateway: GatewayRef | undefined,
): Target {
  return {
    project,
    baseline,
    profiles: Object.fromEntries(Object.entries(components).map(([name, c]) => [name, c.spec])),
    gateway: gateway ?? baseline.gateway,
    gatewaySource: gateway ? 'specification' : 'catalog',
  };
}

async function resolveTargets(catalog: CatalogStore, spec: InstallationSpec): Promise<Target[]> {
  return spec.targets ? listedTargets(catalog, spec.targets) : everyTarget(catalog);
}

async function everyProject(catalog: CatalogStore): Promise<ProjectVersion[]> {
  const names: string[] = [];
  let after: string | null = null;
  do {
    const page = await catalog.listProjects({ limit: maxPageSize, after }, null);
    names.push(...page.items.map((p) => p.name));
    after = page.next_cursor;
  } while (after);
  const versions = await Promise.all(names.map((name) => catalog.readProject(name)));
  return versions.filter((v): v is ProjectVersion => v !== null);
}

/** No targets named: every baseline of every registered project. */
async function everyTarget(catalog: CatalogStore): Promise<Target[]> {
  const versions = await everyProject(catalog);
  return versions.flatMap((version) =>
    Object.values(version.baselines)
      .map((b) => b.spec)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((baseline) => targetOf(version.project, baseline, version.components, undefined)),
  );
}

/** The targets the specification names; unknown ones are 404-like, duplicates a validation error. */
async function listedTargets(
  catalog: CatalogStore,
  listed: NonNullable<InstallationSpec['targets']>,
): Promise<Target[]> {
  const versions = await Promise.all(listed.map((t) => catalog.readProject(t.project)));
  const errors: FieldError[] = [];
  let onlyUnknown = true;
  const seen = new Set<string>();
  const targets: Target[] = [];
  listed.forEach((t, i) => {
    const version = versions[i];
    if (!version) {
      errors.push({ path: `/targets/${i}/project`, message: `project "${t.project}" is not registered` });
      return;
    }
    const names = t.baselines ?? Object.keys(version.baselines).sort();
    names.forEach((name, j) => {
      const path = t.baselines ? `/targets/${i}/baselines/${j}` : `/targets/${i}/project`;
      const baseline = version.baselines[name]?.spec;
      if (!baseline) {
        errors.push({ path, message: `baseline "${name}" is not registered in project "${t.project}"` });
      } else if (seen.has(`${t.project}/${name}`)) {
        onlyUnknown = false;
        errors.push({ path, message: `${t.project}/${name} is listed twice` });
      } else {
        seen.add(`${t.project}/${name}`);
        targets.push(targetOf(t.project, baseline, version.components, t.gateway));
      }
    });
  });
  if (errors.length === 0) return targets;
  if (!onlyUnknown) throw validationFailed(errors);
  throw new ProblemError(ErrorCode.UnknownReference, errors.map((e) => e.message).join('; '), { errors });
}

/** Reads shared by several checks happen once per run. */
function once<T>(): (key: string, load: () => Promise<T>) => Promise<T> {
  const cache = new Map<string, Promise<T>>();
  return (key, load) => {
    let value = cache.get(key);
    if (!value) {
      value = load();
      cache.set(key, value);
    }
    return value;
  };
}

/** Cluster reads several checks share, each made once per run. */
interface SharedReads {
  namespace(name: string): Promise<ClusterObject | null>;
  gateway(ref: GatewayRef): Promise<ClusterObject | null>;
  gatewayClass(name: string): Promise<ClusterObject | null>;
  routes(namespace: string): Promise<ClusterObject[]>;
  permissions(namespace: string): Promise<Outcome>;
}

function sharedReads(cluster: ClusterPort): SharedReads {
  const namespaces = once<ClusterObject | null>();
  const gateways = once<ClusterObject | null>();
  const classes = once<ClusterObject | null>();
  const routes = once<ClusterObject[]>();
  const reviews = once<Outcome>();
  return {
    namespace: (name) =>
      namespaces(name, () => cluster.get({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name })),
    gateway: (ref) =>
      gateways(`${ref.namespace}/${ref.name}`, () =>
        cluster.get({ apiVersion: gatewayApiVersion, kind: 'Gateway', ...ref }),
      ),
    gatewayClass: (name) =>
      classes(name, () =>
        cluster.get({ apiVersion: gatewayApiVersion, kind: 'GatewayClass', namespace: '', name }),
      ),
    routes: (ns) =>
      routes(ns, () => cluster.list(ns, [{ apiVersion: gatewayApiVersion, kind: 'HTTPRoute' }], '')),
    permissions: (ns) => reviews(ns, () => permissionsCheck(cluster, ns)),
  };
}

/** The clusters to check: the ones the specification lists (each one the stage's), else all of them. */
function checkedClusters(registry: ClusterRegistry, spec: InstallationSpec): string[] {
  if (!spec.clusters) return [...registry.names];
  const errors: FieldError[] = spec.clusters.flatMap((name, i) => {
    const found = registry.lookup(name);
    return found.known ? [] : [{ path: `/clusters/${i}`, message: found.reason }];
  });
  if (errors.length > 0) {
    throw new ProblemError(ErrorCode.UnknownReference, errors.map((e) => e.message).join('; '), { errors });
  }
  return [...new Set(spec.clusters)];
}

/** With `clusters` listed, the baselines on them; a target the specification names elsewhere is refused. */
function onClusters(targets: Target[], spec: InstallationSpec): Target[] {
  const listed = spec.clusters;
  if (!listed) return targets;
  const elsewhere = targets.filter((t) => !listed.includes(t.baseline.cluster));
  if (spec.targets && elsewhere.length > 0) {
    throw validationFailed(
      elsewhere.map((t) => ({
        path: '/clusters',
        message: `${t.project}/${t.baseline.name} is on cluster "${t.baseline.cluster}", which clusters does not list`,
      })),
    );
  }
  return targets.filter((t) => listed.includes(t.baseline.cluster));
}

const clusterId = (name: string) => `cluster:${name}`;
const gatewayApiId = (name: string) => `gateway-api:${name}`;

/** A cluster's own checks: its API server answers, and serves the Gateway API. */
function clusterJobs(name: string, cluster: ClusterPort): Job[] {
  return [
    { id: clusterId(name), dependsOn: [], run: () => clusterCheck(name, cluster) },
    { id: gatewayApiId(name), dependsOn: [clusterId(name)], run: () => gatewayApiCheck(name, cluster) },
  ];
}

function planChecks(
  registry: ClusterRegistry,
  clusters: readonly string[],
  targets: readonly Target[],
  limits: ManifestLimits,
  spec: InstallationSpec,
): Job[] {
  const jobs: Job[] = [];
  const onCluster = new Map<string, { cluster: ClusterPort | null; reads: SharedReads | null }>();
  for (const name of new Set([...clusters, ...targets.map((t) => t.baseline.cluster)])) {
    const found = registry.lookup(name);
    if (found.known) {
      jobs.push(...clusterJobs(name, found.cluster));
      onCluster.set(name, { cluster: found.cluster, reads: sharedReads(found.cluster) });
    } else {
      // A baseline on a cluster the stage does not know: its checks cannot be established.
      jobs.push({
        id: clusterId(name),
        dependsOn: [],
        run: async () => failed(found.reason, { cluster: name }),
      });
      onCluster.set(name, { cluster: null, reads: null });
    }
  }
  if (targets.length === 0 && !spec.targets && !spec.clusters) {
    jobs.push({
      id: 'catalog',
      dependsOn: [],
      run: async () =>
        unknown(
          'no baseline is registered, so none was checked: apply the catalog first (svc catalog apply)',
        ),
    });
  }
  for (const t of targets) {
    const where = onCluster.get(t.baseline.cluster);
    jobs.push(...targetJobs(where?.cluster ?? null, where?.reads ?? null, t));
    if (t.baseline.messaging) {
      const id = `messaging:${t.project}/${t.baseline.name}`;
      jobs.push({ id, dependsOn: [], run: async () => messagingCheck(t, limits.messageTopics) });
    }
  }
  return jobs;
}

/**
 * KEDA's checks on each cluster with a baseline whose forks sleep (its own `sleep`, or the stage's
 * default); none where no baseline sleeps. A cluster the stage does not know fails its own check.
 */
function sleepJobs(registry: ClusterRegistry, targets: readonly Target[], settings: SleepSettings): Job[] {
  const sleeping = new Map<string, string[]>();
  for (const t of targets) {
    if (sleepAfter(t.baseline, settings) === null) continue;
    const scopes = sleeping.get(t.baseline.cluster) ?? [];
    sleeping.set(t.baseline.cluster, [...scopes, `${t.project}/${t.baseline.name}`]);
  }
  return [...sleeping].flatMap(([name, baselines]) => {
    const found = registry.lookup(name);
    if (!found.known) return [];
    return [
      {
        id: `keda:${name}`,
        dependsOn: [clusterId(name)],
        run: () => kedaCrdsCheck(name, found.cluster, baselines),
      },
      {
        id: `keda-interceptor:${name}`,
        dependsOn: [clusterId(name)],
        run: () => interceptorCheck(name, found.cluster),
      },
    ];
  });
}

/** One baseline's checks on its cluster (null: one the stage does not know, so none can be established). */
function targetJobs(cluster: ClusterPort | null, reads: SharedReads | null, t: Target): Job[] {
  const scope = `${t.project}/${t.baseline.name}`;
  const ns = t.baseline.namespace;
  const namespaceId = `namespace:${scope}`;
  const gatewayId = `gateway:${scope}`;
  const [own, api] = [clusterId(t.baseline.cluster), gatewayApiId(t.baseline.cluster)];
  const mesh = [own, api, namespaceId];
  const on = (run: (cluster: ClusterPort, reads: SharedReads) => Promise<Outcome>) => () =>
    cluster && reads
      ? run(cluster, reads)
      : Promise.resolve(unknown("its cluster is not one of the stage's"));
  return [
    { id: namespaceId, dependsOn: [own], run: on((_, r) => namespaceCheck(ns, r.namespace)) },
    ...Object.keys(t.baseline.components)
      .sort()
      .map((component) => ({
        id: `workload:${scope}/${component}`,
        dependsOn: [own, namespaceId],
        run: on((c) => workloadCheck(c, t, component)),
      })),
    { id: gatewayId, dependsOn: [own, api], run: on((_, r) => gatewayCheck(t, r.gateway)) },
    {
      id: `gateway-listener:${scope}`,
      dependsOn: [own, api, gatewayId],
      run: on((_, r) => listenerCheck(t, r.gateway, r.namespace)),
    },
    {
      id: `gateway-features:${scope}`,
      dependsOn: [own, api, gatewayId],
      run: on((_, r) => gatewayFeaturesCheck(t, r.gateway, r.gatewayClass)),
    },
    { id: `mesh-route-schema:${scope}`, dependsOn: mesh, run: on((c) => meshSchemaCheck(c, t)) },
    {
      id: `mesh-route-controller:${scope}`,
      dependsOn: mesh,
      run: on(async (_, r) => meshControllerVerdict(ns, await r.routes(ns))),
    },
    { id: `permissions:${scope}`, dependsOn: [own], run: on((_, r) => r.permissions(ns)) },
  ];
}

/** A check that throws or outlasts its time is unknown: the cluster did not answer the question. */
async function settle(job: Job, timeoutMs: number): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () => resolve(unknown(`no answer from the cluster within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      job
        .run()
        .catch((error: unknown) =>
          unknown(`could not ask the cluster: ${describeFailure(error)}`, { error: describeFailure(error) }),
        ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A check whose prerequisite failed (or was itself not established) and did not pass is not established either. */
function withPrerequisites(jobs: readonly Job[], outcomes: readonly Outcome[]): InstallationCheckView[] {
  const effective = new Map<string, { check: InstallationCheckView; blocked: boolean }>();
  return jobs.map((job, i) => {
    const own = { id: job.id, ...(outcomes[i] as Outcome) };
    const blocker = job.dependsOn.find((id) => {
      const dependency = effective.get(id);
      return dependency && (dependency.blocked || dependency.check.status === CheckStatus.Failed);
    });
    const check: InstallationCheckView =
      blocker && own.status !== CheckStatus.Passed
        ? {
            id: job.id,
            status: CheckStatus.Unknown,
            message: `not established: ${blocker} did not pass`,
            evidence: { depends_on: blocker, observed: { status: own.status, message: own.message } },
          }
        : own;
    effective.set(job.id, { check, blocked: check !== own });
    return check;
  });
}

/** One line from whatever the adapter threw: the API server's Status message when there is one. */
