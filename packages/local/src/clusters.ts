/**
 * The stack's clusters: its own local clusters (`local`, and with `clusters: n` also `local-2`…,
 * each with its API server, preview gateway, state, and a kubeconfig per identity: the operator's,
 * the API's and the worker's, held to deploy/kubernetes/rbac.yaml), and clusters from outside,
 * reached only through a kubeconfig (`npm start -- --kubeconfig FILE`) and taken once the
 * installation check passed for them. What the services' settings say of them is `clusterVariables`.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Installation } from '@svc/core';
import { kubeconfigContext } from '@svc/kube';
import { isClusterName, localClusterName } from '@svc/kube/settings';
import { type LocalCluster, type LocalUser, startLocalCluster } from '@svc/local-cluster';
import { grantStackAccess } from './cluster-rbac.ts';

/** A cluster of the team's own (kind, k3d, a staging EKS), as `npm start -- --kubeconfig` names it. */
export interface OutsideCluster {
  kubeconfig: string;
  /** Absent: the kubeconfig's current context. The cluster is named after the context. */
  context?: string;
  /** Where its previews answer (`{id}`, `{domain}`); default `http://{id}.{domain}/`, its Gateway's own. */
  previewUrl?: string;
}

/** The services' identities on the stack's own clusters, each in its group of deploy/kubernetes/rbac.yaml. */
export type ServiceIdentity = keyof typeof Installation.clusterGroups;

/** One of the stack's own local clusters, as it runs now (`restart` replaces `cluster`). */
export interface LocalClusterRun {
  readonly name: string;
  readonly cluster: LocalCluster;
  /** The operator's kubeconfig (`system:masters`): people, tests, the demo's seeding. */
  readonly kubeconfigPath: string;
  /** The API's and the worker's kubeconfigs, each with the identity the manifest binds. */
  readonly kubeconfigs: Readonly<Record<ServiceIdentity, string>>;
  /** Who may call its API server, by token; kept across a restart so clients keep working. */
  readonly users: readonly LocalUser[];
  /** Where its state is kept; null: in memory, so it cannot be restarted. */
  readonly dataDir: string | null;
}

/** The operator (an admin) first, then the API and the worker, each in its own group. */
function stackUsers(): LocalUser[] {
  const token = () => randomBytes(24).toString('base64url');
  const { api, worker } = Installation.clusterGroups;
  return [
    { name: 'admin', token: token(), groups: ['system:masters'] },
    { name: api, token: token(), groups: [api] },
    { name: worker, token: token(), groups: [worker] },
  ];
}

/** Writes a kubeconfig readable by its owner only (`mode` applies to a new file: one kept from an earlier run is made so too). */
function writeKubeconfig(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600);
}

type Cleanups = (() => Promise<void>)[];

/** `local`, `local-2`, `local-3`…: the names of the stack's own clusters. */
export const localClusterNames = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => (i === 0 ? localClusterName : `${localClusterName}-${i + 1}`));

/**
 * The gateway port of the stack's `n`-th cluster (from 0): `local` on the one asked for, the others
 * two and more above it (one above is the local forge's, 8083 beside 8082); 0 picks free ones.
 */
export const gatewayPortOf = (gatewayPort: number, index: number): number =>
  gatewayPort === 0 || index === 0 ? gatewayPort : gatewayPort + index + 1;

export interface LocalClustersOptions {
  host: string;
  count: number;
  gatewayPort: number;
  podReadyDelayMs: number;
  stateDir: string | undefined;
}

/**
 * Starts the stack's own clusters. With a state directory, `local` keeps its state in `cluster/`
 * and its kubeconfig in `kubeconfig` (as before there were several), `local-2` in `cluster-local-2/`
 * and `kubeconfig-local-2`; without one, `local` runs in memory and the others keep their state in
 * a temporary directory, so a test can stop one and start it again.
 */
export async function startLocalClusters(
  options: LocalClustersOptions,
  cleanups: Cleanups,
): Promise<LocalClusterRun[]> {
  const dir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'svc-stack-'));
  if (!options.stateDir) cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const names = localClusterNames(options.count);
  const runs = await Promise.all(
    names.map(async (name, index): Promise<LocalClusterRun> => {
      const first = index === 0;
      const dataDir = first ? (options.stateDir ? join(dir, 'cluster') : null) : join(dir, `cluster-${name}`);
      const users = stackUsers();
      const cluster = await startLocalCluster({
        host: options.host,
        port: 0,
        gatewayPort: gatewayPortOf(options.gatewayPort, index),
        podReadyDelayMs: options.podReadyDelayMs,
        users,
        ...(dataDir ? { dataDir } : {}),
      });
      const kubeconfigPath = join(dir, first ? 'kubeconfig' : `kubeconfig-${name}`);
      writeKubeconfig(kubeconfigPath, cluster.kubeconfig(name));
      const kubeconfigs = { api: `${kubeconfigPath}-api`, worker: `${kubeconfigPath}-worker` };
      for (const identity of ['api', 'worker'] as const) {
        writeKubeconfig(
          kubeconfigs[identity],
          cluster.kubeconfig(name, Installation.clusterGroups[identity]),
        );
      }
      const run = { name, cluster, kubeconfigPath, kubeconfigs, users, dataDir };
      await grantStackAccess(run);
      return run;
    }),
  );
  cleanups.push(() => Promise.all(runs.map((run) => run.cluster.stop())).then(() => {}));
  return runs;
}

/**
 * Stops one of the stack's own clusters and starts it again on the same ports with the state it
 * kept: clients that knew it reconnect as to a cluster that came back.
 */
export async function restartLocalCluster(
  run: LocalClusterRun,
  podReadyDelayMs: number,
): Promise<LocalClusterRun> {
  if (!run.dataDir)
    throw new Error(`cluster "${run.name}" keeps its state in memory: it cannot be restarted`);
  await run.cluster.stop();
  const cluster = await startLocalCluster({
    host: new URL(run.cluster.url).hostname,
    port: Number(new URL(run.cluster.url).port),
    gatewayPort: Number(new URL(run.cluster.gatewayUrl).port),
    podReadyDelayMs,
    users: run.users,
    dataDir: run.dataDir,
  });
  return { ...run, cluster };
}

/** An outside cluster as the services will reach it: its name (its context's) and settings. */
export interface NamedOutsideCluster extends OutsideCluster {
  name: string;
}

/**
 * Names each outside cluster after its kubeconfig context (the one given, or the file's current
 * one); a context the file does not have, or a name the stack's own clusters or another outside
 * one already have, is refused.
 */
export function nameOutsideClusters(
  outside: readonly OutsideCluster[],
  taken: readonly string[],
): NamedOutsideCluster[] {
  const names = new Set(taken);
  return outside.map((cluster) => {
    const kubeconfig = resolve(cluster.kubeconfig);
    let name: string;
    try {
      name = kubeconfigContext(kubeconfig, cluster.context);
    } catch (error) {
      throw new OutsideClusterRefused((error as Error).message);
    }
    if (!isClusterName(name)) {
      throw new OutsideClusterRefused(
        `the context "${name}" of ${kubeconfig} cannot name a cluster (1–100 printable characters without spaces): pass --context with another context`,
      );
    }
    if (names.has(name)) {
      throw new OutsideClusterRefused(
        `the cluster of context "${name}" (${kubeconfig}) has the name of another cluster of the stack: pass --context with another context`,
      );
    }
    names.add(name);
    return { ...cluster, kubeconfig, name };
  });
}

/** What one cluster of the stack takes, as a stage's `clusterAccess` says it (CLUSTERS' fields). */
export interface LocalClusterAccess {
  projects?: string[];
  preview_namespaces?: string[];
  preview_domains?: string[];
}

/**
 * What the settings of the API or the worker say of the clusters: the one local cluster as
 * `KUBECONFIG` (plain `npm start`, as it always was), or all of them as `CLUSTERS`, each with its
 * own preview URL and what `access` gives it. The stack's own clusters are reached with that
 * function's identity; an outside one with its kubeconfig, whatever it grants (the team's cluster,
 * not ours to hold to the manifest).
 */
export function clusterVariables(
  local: readonly LocalClusterRun[],
  outside: readonly NamedOutsideCluster[],
  identity: ServiceIdentity,
  access: Readonly<Record<string, LocalClusterAccess>> = {},
): Record<string, string> {
  const [first, ...others] = local;
  if (!first) throw new Error('the stack runs at least one local cluster');
  if (others.length === 0 && outside.length === 0 && Object.keys(access).length === 0) {
    return { KUBECONFIG: first.kubeconfigs[identity] };
  }
  const localEntries = local.map((run) => [
    run.name,
    { kubeconfig: run.kubeconfigs[identity], preview_url: gatewayTemplate(run.cluster), ...access[run.name] },
  ]);
  const outsideEntries = outside.map((cluster) => [
    cluster.name,
    {
      kubeconfig: cluster.kubeconfig,
      ...(cluster.context ? { context: cluster.context } : {}),
      preview_url: cluster.previewUrl ?? 'http://{id}.{domain}/',
      ...access[cluster.name],
    },
  ]);
  return { CLUSTERS: JSON.stringify(Object.fromEntries([...localEntries, ...outsideEntries])) };
}

/** A local cluster's previews: `http://<id>.<domain>:<its gateway's port>/`. */
export const gatewayTemplate = (cluster: LocalCluster) =>
  `http://{id}.{domain}:${new URL(cluster.gatewayUrl).port}/`;

/** The stack would not start with an outside cluster: which, and why. */
export class OutsideClusterRefused extends Error {
  override name = 'OutsideClusterRefused';
}

/**
 * The installation check of each outside cluster and the baselines the catalog has on it, as
 * `svc installation check` runs it; a cluster any check fails is refused, naming each failed check.
 * Unknown checks (a fresh cluster has no accepted mesh route yet) do not refuse it.
 */
export async function checkOutsideClusters(
  deps: Installation.InstallationDeps,
  outside: readonly NamedOutsideCluster[],
): Promise<void> {
  for (const cluster of outside) {
    const report = await Installation.check(deps, { clusters: [cluster.name] });
    const failed = report.checks.filter((c) => c.status === 'failed');
    if (failed.length > 0) {
      throw new OutsideClusterRefused(
        `cluster "${cluster.name}" (${cluster.kubeconfig}) failed the installation check, so the stack does not use it: ${failed
          .map((c) => `${c.id}: ${c.message}`)
          .join('; ')}`,
      );
    }
  }
}
