import { readFileSync } from 'node:fs';
import { CreateTopicCommand, type SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Auth, Catalog, type Cluster } from '@svc/core';
import { DEPENDENCIES_ANNOTATION } from '@svc/local-cluster';
import { applyAll, baselineAccess } from './cluster-rbac.ts';

/** The one demo manifest: seeds the local catalog and (with the cluster) the baseline workloads. */
const demoManifestPath = new URL('../demo/catalog.json', import.meta.url);

/** The API origin the manifest's own links name: `npm start`'s default. */
const manifestApiUrl = 'http://127.0.0.1:8081';

/**
 * The demo baseline on one of the stack's further local clusters: `staging-2` on `local-2`, the
 * demo's `staging` again (its namespace too: a namespace is claimed per cluster), without messaging.
 */
export const demoBaselineOn = (cluster: string) => `staging${cluster.slice('local'.length)}`;

/**
 * The demo manifest; with `apiUrl`, its observability links that point at the API point at that
 * one instead, so a stack on other ports links to itself. With `clusters` (the stack's further
 * local clusters), the demo project has a baseline on each of them too ({@link demoBaselineOn}).
 */
export function demoManifest(apiUrl?: string, clusters: readonly string[] = []): Catalog.CatalogManifest {
  const manifest = JSON.parse(readFileSync(demoManifestPath, 'utf8')) as Catalog.CatalogManifest;
  const demo = manifest.projects.find((p) => p.name === 'demo');
  const staging = demo?.baselines.find((b) => b.name === demo.default_baseline);
  for (const cluster of clusters) {
    if (!demo || !staging) break;
    const observability = { ...staging.observability };
    demo.baselines.push({
      ...staging,
      observability,
      name: demoBaselineOn(cluster),
      cluster,
      messaging: null,
    });
  }
  if (apiUrl === undefined) return manifest;
  for (const baseline of manifest.projects.flatMap((project) => project.baselines)) {
    for (const [name, link] of Object.entries(baseline.observability ?? {})) {
      if (link.startsWith(`${manifestApiUrl}/`) && baseline.observability)
        baseline.observability[name] = `${apiUrl}${link.slice(manifestApiUrl.length)}`;
    }
  }
  return manifest;
}

/** An image of a demo component in the demo registry (the baseline runs tag 1.0.0). */
export const image = (component: string, tag = '2.0.0') => `registry.example.com/demo/${component}:${tag}`;

/**
 * The demo project under another name, its baselines in a namespace of their own named after it
 * (a namespace belongs to one project); `deployBaselineOf` runs their workloads there.
 */
export function demoManifestAs(projectName: string): Catalog.CatalogManifest {
  const manifest = structuredClone(demoManifest());
  for (const project of manifest.projects) {
    project.name = projectName;
    for (const baseline of project.baselines) baseline.namespace = projectName;
  }
  return manifest;
}

/** The demo project under another name, with no messaging set up (for what only such a baseline does). */
export function demoManifestWithoutMessaging(projectName: string): Catalog.CatalogManifest {
  const manifest = demoManifestAs(projectName);
  for (const project of manifest.projects) {
    for (const baseline of project.baselines) baseline.messaging = null;
    for (const component of project.components) component.message_subscriptions = [];
  }
  return manifest;
}

/**
 * Applies the demo manifest through the normal catalog path, its links pointing at `apiUrl`, with a
 * baseline on each of `clusters`; a no-op when it is already current (a stack on other ports or
 * clusters than last time applies a new version).
 */
export function seedDemoCatalog(deps: Catalog.CatalogDeps, apiUrl: string, clusters: readonly string[] = []) {
  return Catalog.apply(deps, Auth.devIdentity, demoManifest(apiUrl, clusters));
}

/** Environment variables per component of the demo baseline (where its queues are). */
export type DemoEnv = Record<string, { name: string; value: string }[]>;

/**
 * The operator's part of message isolation for the demo baseline: its topics, and for each
 * consuming component a baseline queue whose subscription excludes routed messages. Publishers
 * must set at least one message attribute for such a filter to match (SNS semantics).
 */
export async function setUpDemoMessaging(clients: { sns: SNSClient; sqs: SQSClient }): Promise<DemoEnv> {
  const manifest = demoManifest();
  const env: DemoEnv = {};
  // Baselines sharing a namespace (staging and staging-sleepy) share its workloads, so its queues.
  const namespaces = new Set<string>();
  for (const project of manifest.projects) {
    for (const baseline of project.baselines) {
      if (!baseline.messaging || namespaces.has(baseline.namespace)) continue;
      namespaces.add(baseline.namespace);
      const topics = new Map<string, string>();
      for (const topic of baseline.messaging.topics) {
        const { TopicArn } = await clients.sns.send(new CreateTopicCommand({ Name: topic }));
        if (TopicArn) topics.set(topic, TopicArn);
      }
      for (const component of project.components) {
        if (!(component.name in baseline.components)) continue;
        for (const subscription of component.message_subscriptions) {
          const topicArn = topics.get(subscription.topic);
          if (!topicArn) continue;
          const name = `${baseline.namespace}-${component.name}-${subscription.topic}`;
          const { QueueUrl } = await clients.sqs.send(new CreateQueueCommand({ QueueName: name }));
          const { Attributes } = await clients.sqs.send(
            new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
          );
          await clients.sns.send(
            new SubscribeCommand({
              TopicArn: topicArn,
              Protocol: 'sqs',
              Endpoint: Attributes?.QueueArn,
              ReturnSubscriptionArn: true,
              Attributes: {
                FilterPolicy: JSON.stringify({ [baseline.messaging.routing_attribute]: [{ exists: false }] }),
                RawMessageDelivery: 'true',
              },
            }),
          );
          env[component.name] = [
            ...(env[component.name] ?? []),
            { name: subscription.queue_env, value: QueueUrl ?? '' },
          ];
        }
      }
    }
  }
  return env;
}

/**
 * The demo baseline's workloads, rendered from the same manifest as the catalog: a Deployment and
 * a Service per component. Services select on `app`, so forks (which drop that label) never
 * receive baseline traffic; `app.kubernetes.io/name` names the component in workload answers.
 */
export function baselineObjects(
  manifest: Catalog.CatalogManifest,
  env: DemoEnv = {},
  projectName = 'demo',
  baselineName?: string,
): Cluster.ClusterObject[] {
  const project = manifest.projects.find((p) => p.name === projectName);
  const baseline = project?.baselines.find((b) => b.name === (baselineName ?? project.default_baseline));
  if (!project || !baseline) throw new Error(`demo manifest has no baseline for project ${projectName}`);
  const profiles = new Map(project.components.map((c) => [c.name, c]));
  const objects: Cluster.ClusterObject[] = [
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
                ...(env[name] ? { env: env[name] } : {}),
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
export function deployDemoBaseline(cluster: Cluster.ClusterPort, env: DemoEnv = {}, timeoutMs = 30_000) {
  return deployBaselineOf(cluster, demoManifest(), 'demo', env, timeoutMs);
}

/**
 * Runs a baseline (default: the default) of `projectName` in `manifest` (a demo-shaped one), grants
 * the service its namespace as deploy/kubernetes/rbac.yaml says an operator does, and waits for it.
 */
export async function deployBaselineOf(
  cluster: Cluster.ClusterPort,
  manifest: Catalog.CatalogManifest,
  projectName: string,
  env: DemoEnv = {},
  timeoutMs = 30_000,
  baselineName?: string,
): Promise<void> {
  const objects = baselineObjects(manifest, env, projectName, baselineName);
  const namespace = objects.find((o) => o.kind === 'Deployment')?.metadata.namespace ?? 'staging';
  await applyAll(cluster, [...objects, ...baselineAccess(namespace)]);
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
