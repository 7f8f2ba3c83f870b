import { Cluster, type Compositions, Rollout } from '@svc/core';
import { isolate } from '../isolation.ts';
import { applySleep, sleepKinds, sleepRouting } from './sleep.ts';
import { readTarget, type Step } from './step.ts';

const routeKinds = [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' }] as const;
const forkKinds = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'v1', kind: 'Service' },
] as const;

/**
 * Anchor, forks and their Services, and the public route; forks of components no longer overridden
 * go. Safe to repeat: server-side applies with one field manager, deletes of absent objects succeed.
 */
export const apply: Step = async (context) => {
  const { deps, cluster, composition, operation } = context;
  const target = await readTarget(context);
  if ('kind' in target) return target;
  const forkable = Rollout.forkableBases(
    composition.namespace,
    await readBases(cluster, composition, target.forks),
  );
  if (forkable.kind === 'fail') return forkable;

  // No fence: apply is an operation's first step, so it always runs first in its invocation, right
  // after the runner read the operation as current (and, at pickup, wrote it so, conditional on the
  // composition's version). A fence here re-read what was read a few milliseconds earlier.
  // Queues first: each fork's pods are told where their isolated queues are.
  const isolation = await isolate(deps, composition, target.baseline, target.profiles);
  if (isolation.blockers.length) return { kind: 'fail', blockers: isolation.blockers };
  const anchor = await cluster.apply(
    Cluster.anchor(composition.id, composition.namespace, operation.generation),
  );
  context.seen.anchor = anchor;
  const owner = Cluster.ownerReference(anchor);
  await Promise.all(
    forkable.bases.flatMap((base) => {
      const input = {
        id: composition.id,
        generation: operation.generation,
        component: base.component,
        profile: base.profile,
        baseline: target.baseline,
        baselineDeployment: base.deployment,
        baselineService: base.service,
        image: base.image,
        owner,
        progressDeadlineSeconds: deps.settings.progressDeadlineSeconds,
        env: isolation.env[base.component] ?? [],
        sleeps: Boolean(composition.sleep),
      };
      return [cluster.apply(Cluster.forkDeployment(input)), cluster.apply(Cluster.forkService(input))];
    }),
  );
  await applySleep(
    deps,
    cluster,
    composition,
    forkable.bases.map((base) => ({
      id: composition.id,
      component: base.component,
      profile: base.profile,
      baseline: target.baseline,
      owner,
      queueUrls: (isolation.env[base.component] ?? []).map((variable) => variable.value),
    })),
  );
  // Until the forks are out, the preview URL answers from what served it before, marked pending;
  // await-rollout routes it to the forks and drops the mark.
  const pending = Rollout.pendingEntryRoute(
    composition,
    target,
    owner,
    operation.generation,
    sleepRouting(deps, composition),
  );
  if (pending) await cluster.apply(pending);
  if (Rollout.mayHaveInherited(composition, operation)) await removeInherited(cluster, composition);
  return { kind: 'done' };
};

/** The baseline Deployment and Service each fork copies. */
function readBases(
  cluster: Cluster.ClusterPort,
  composition: Compositions.CompositionRecord,
  forks: readonly Rollout.ForkTarget[],
): Promise<Rollout.ForkBase[]> {
  return Promise.all(
    forks.map(async (fork) => {
      const [deployment, service] = await Promise.all([
        cluster.getDeployment(composition.namespace, fork.profile.workload.name),
        cluster.getService(composition.namespace, fork.profile.service.name),
      ]);
      return { ...fork, deployment, service };
    }),
  );
}

/**
 * Components that went back to inheritance: their route goes first, so traffic returns to the
 * baseline, then the fork. Three lists, so only when forks of them may exist (`mayHaveInherited`).
 */
async function removeInherited(
  cluster: Cluster.ClusterPort,
  composition: Compositions.CompositionRecord,
): Promise<void> {
  const selector = Cluster.compositionSelector(composition.id);
  const kindLists = composition.sleep ? [routeKinds, sleepKinds, forkKinds] : [routeKinds, forkKinds];
  for (const kinds of kindLists) {
    const objects = await cluster.list(composition.namespace, kinds, selector);
    await Promise.all(
      Rollout.inheritedAgain(objects, composition).map((o) => cluster.delete(Cluster.refOf(o))),
    );
  }
}
