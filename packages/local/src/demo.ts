import { readFileSync } from 'node:fs';
import {
  applyCatalog,
  type CatalogDeps,
  type CatalogManifest,
  type ClusterObject,
  type ClusterPort,
} from '@svc/core';
import { DEPENDENCIES_ANNOTATION } from '@svc/local-cluster';

/** The one demo manifest: seeds the local catalog and (with the cluster) the baseline workloads. */
export const demoManifestPath = new URL('../demo/catalog.json', import.meta.url);

export function demoManifest(): CatalogManifest {
  return JSON.parse(readFileSync(demoManifestPath, 'utf8')) as CatalogManifest;
}

/** Applies the demo manifest through the normal catalog path; a no-op when it is already current. */
export function seedDemoCatalog(deps: CatalogDeps) {
  return applyCatalog(deps, demoManifest());
}

/**
 * The demo baseline's workloads, rendered from the same manifest as the catalog: a Deployment and
 * a Service per component. Services select on `app`, so forks (which drop that label) never
 * receive baseline traffic; `app.kubernetes.io/name` names the component in workload answers.
 */
export function baselineObjects(
  manifest: CatalogManifest,
  projectName = 'demo',
  baselineName?: string,
): ClusterObject[] {
  const project = manifest.projects.find((p) => p.name === projectName);
  const baseline = project?.baselines.find((b) => b.name === (baselineName ?? project.default_baseline));
  if (!project || !baseline) throw new Error(`demo manifest has no baseline for project ${projectName}`);
  const profiles = new Map(project.components.map((c) => [c.name, c]));
  const objects: ClusterObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: baseline.namespace } },
  ];
  for (const [name, running] of Object.entries(baseline.components)) {
    const profile = profiles.get(name);
    if (!profile) continue;
    const labels = { app: profile.service.name, 'app.kubernetes.io/name': name };
    const calls = profile.dependencies
      .map((d) => profiles.get(d)?.service.name)
      .filter(Boolean)
      .join(',');
    objects.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: profile.workload.name, namespace: baseline.namespace, labels },
      spec: {
        replicas: running.replicas,
        selector: { matchLabels: { app: profile.service.name } },
        template: {
          metadata: { labels, ...(calls ? { annotations: { [DEPENDENCIES_ANNOTATION]: calls } } : {}) },
          spec: {
            containers: [
              {
                name: profile.workload.container,
                image: running.image,
                ports: [{ containerPort: profile.port }],
              },
            ],
          },
        },
      },
    });
    objects.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: profile.service.name, namespace: baseline.namespace, labels },
      spec: {
        selector: { app: profile.service.name },
        ports: [{ name: 'http', port: profile.service.port, targetPort: profile.port, protocol: 'TCP' }],
      },
    });
  }
  return objects;
}

/** Applies the demo baseline (idempotent: server-side apply) and waits until its Deployments are Available. */
export async function deployDemoBaseline(cluster: ClusterPort, timeoutMs = 30_000): Promise<void> {
  const objects = baselineObjects(demoManifest());
  for (const object of objects) await cluster.apply(object);
  const namespace = objects.find((o) => o.kind === 'Deployment')?.metadata.namespace ?? 'staging';
  const names = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
  await cluster.watchDeployments(
    namespace,
    'app.kubernetes.io/name',
    (deployments) =>
      names.every((name) => {
        const d = deployments.find((x) => x.metadata.name === name);
        return d?.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;
      }),
    timeoutMs,
  );
}
