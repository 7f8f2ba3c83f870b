/**
 * The inputs a verification depends on, read from the cluster and the catalog: inherited images,
 * Service selectors and ports, the composition's routes, fork workload generations and the
 * verification contract revisions.
 */
import { contentHash } from '../canonical.ts';
import type { ProjectVersion } from '../catalog/model.ts';
import type { ClusterObject, Deployment } from '../cluster/objects.ts';
import type { ClusterPort } from '../cluster/ports.ts';
import { compositionSelector, forkName } from '../cluster/render.ts';
import type { CompositionRecord } from '../compositions/model.ts';
import type { Fingerprint } from './model.ts';

export async function fingerprint(
  cluster: ClusterPort,
  catalog: ProjectVersion,
  composition: Pick<CompositionRecord, 'id' | 'baseline' | 'desired'>,
): Promise<Fingerprint> {
  const baseline = catalog.baselines[composition.baseline]?.spec;
  if (!baseline) throw new Error(`baseline ${composition.baseline} is no longer registered`);
  const namespace = baseline.namespace;
  const overridden = new Set(Object.keys(composition.desired.images));
  const inputs: Record<string, string> = {};

  const components = Object.keys(baseline.components).sort();
  await Promise.all(
    components.map(async (name) => {
      const profile = catalog.components[name];
      if (!profile) return;
      inputs[`contract:${name}`] = `${profile.revision}:${contentHash(profile.spec.verification)}`;
      const service = await cluster.getService(namespace, profile.spec.service.name);
      inputs[`service:${name}`] = contentHash(
        service ? { selector: service.spec.selector, ports: service.spec.ports } : null,
      );
      if (overridden.has(name)) {
        const fork = await cluster.getService(namespace, forkName(profile.spec.service.name, composition.id));
        inputs[`fork-service:${name}`] = contentHash(
          fork ? { selector: fork.spec.selector, ports: fork.spec.ports } : null,
        );
        return;
      }
      const workload = await cluster.getDeployment(namespace, profile.spec.workload.name);
      inputs[`image:${name}`] = imageOf(workload, profile.spec.workload.container) ?? 'absent';
    }),
  );

  const forks = await cluster.listDeployments(namespace, compositionSelector(composition.id));
  for (const fork of forks) {
    inputs[`workload:${fork.metadata.name}`] = String(fork.metadata.generation ?? 0);
  }
  const routes = await cluster.list(
    namespace,
    [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' }],
    compositionSelector(composition.id),
  );
  for (const route of routes) inputs[`route:${route.metadata.name}`] = contentHash(specOf(route));

  const sorted = Object.fromEntries(Object.entries(inputs).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { inputs: sorted, hash: contentHash(sorted) };
}

function imageOf(deployment: Deployment | null, container: string): string | null {
  return deployment?.spec.template.spec.containers.find((c) => c.name === container)?.image ?? null;
}

function specOf(object: ClusterObject): unknown {
  return object.spec ?? null;
}
