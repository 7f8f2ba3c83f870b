/**
 * The inputs a verification depends on, read from the cluster and the catalog: inherited images,
 * Service selectors and ports, the composition's routes, fork workload specs and the
 * verification contract revisions.
 */
import { contentHash } from '../canonical.ts';
import type { ProjectVersion } from '../catalog/model.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import { type ClusterObject, type Deployment, forkName, Label, type Service } from '../cluster/objects.ts';
import type { ClusterPort } from '../cluster/ports.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import { compositionSelector } from '../cluster/render.ts';
import type { CompositionRecord } from '../compositions/model.ts';
import type { Fingerprint } from './model.ts';

/**
 * Reads the cluster in at most five lists, whatever the number of components: the namespace's
 * own (unlabelled) Services and Deployments, and the composition's forks, fork Services and
 * routes. Selected by label, each list stays the size of the baseline or of one composition
 * however many other previews share the namespace (a get per object grew with the baseline: two
 * per component). `known.forks`, the forks as the caller saw them a moment ago, saves their list.
 */
export async function fingerprint(
  cluster: ClusterPort,
  catalog: ProjectVersion,
  composition: Pick<CompositionRecord, 'id' | 'baseline' | 'desired'>,
  known: { forks?: readonly Deployment[] | undefined } = {},
): Promise<Fingerprint> {
  const baseline = catalog.baselines[composition.baseline]?.spec;
  if (!baseline) throw new Error(`baseline ${composition.baseline} is no longer registered`);
  const namespace = baseline.namespace;
  const overridden = new Set(Object.keys(composition.desired.images));
  const components = Object.keys(baseline.components).sort();
  const ours = compositionSelector(composition.id);
  const notPreviews = `!${Label.Composition}`;
  const [services, workloads, forks, forkServices, routes] = await Promise.all([
    cluster.listServices(namespace, notPreviews),
    components.some((name) => !overridden.has(name)) ? cluster.listDeployments(namespace, notPreviews) : [],
    known.forks ?? cluster.listDeployments(namespace, ours),
    overridden.size ? cluster.listServices(namespace, ours) : [],
    cluster.list(namespace, [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' }], ours),
  ]);
  const named = <T extends ClusterObject>(objects: readonly T[], name: string) =>
    objects.find((o) => o.metadata.name === name) ?? null;

  const inputs: Record<string, string> = {};
  for (const name of components) {
    const profile = catalog.components[name];
    if (!profile) continue;
    inputs[`contract:${name}`] = `${profile.revision}:${contentHash(profile.spec.verification)}`;
    inputs[`service:${name}`] = serviceHash(named(services, profile.spec.service.name));
    if (overridden.has(name)) {
      const fork = named(forkServices, forkName(profile.spec.service.name, composition.id));
      inputs[`fork-service:${name}`] = serviceHash(fork);
      continue;
    }
    const workload = named(workloads, profile.spec.workload.name);
    inputs[`image:${name}`] = imageOf(workload, profile.spec.workload.container) ?? 'absent';
  }
  for (const fork of forks) inputs[`workload:${fork.metadata.name}`] = forkSpecHash(fork);
  for (const route of routes) inputs[`route:${route.metadata.name}`] = contentHash(specOf(route));

  const sorted = Object.fromEntries(Object.entries(inputs).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { inputs: sorted, hash: contentHash(sorted) };
}

/**
 * A fork's spec but its replicas: a fork scaled to zero and back (docs/sleep.md) still runs what
 * was verified, while anything else changed in it (its generation would say so too) does not.
 */
function forkSpecHash(fork: Deployment): string {
  const { replicas: _scaledBySleep, ...spec } = fork.spec;
  return contentHash(spec);
}

function serviceHash(service: Service | null): string {
  return contentHash(service ? { selector: service.spec.selector, ports: service.spec.ports } : null);
}

function imageOf(deployment: Deployment | null, container: string): string | null {
  return deployment?.spec.template.spec.containers.find((c) => c.name === container)?.image ?? null;
}

function specOf(object: ClusterObject): unknown {
  return object.spec ?? null;
}

/** The fingerprint of a composition as it stands now, on its own cluster; null when it cannot be read. */
export async function currentFingerprint(
  deps: { catalog: CatalogStore; clusters: ClusterRegistry },
  record: CompositionRecord,
): Promise<Fingerprint | null> {
  const cluster = deps.clusters.lookup(record.cluster);
  const catalog = await deps.catalog.readProject(record.project);
  if (!catalog || !cluster.known) return null;
  return fingerprint(cluster.cluster, catalog, record).catch(() => null);
}
