import { Cluster, Rollout } from '@svc/core';
import { sleepRouting } from './sleep.ts';
import { readTarget, type Step, type StepContext } from './step.ts';

/**
 * Waits on the forks' Deployment conditions (a short watch on the first look, a list on later ones,
 * each re-enqueued with a delay), then routes keyed and public traffic to them. Safe to repeat: it
 * re-reads the cluster, and applies are idempotent.
 */
export const awaitRollout: Step = async (context) => {
  const { deps, cluster, composition, operation } = context;
  const target = await readTarget(context);
  if ('kind' in target) return target;
  const { forks } = target;
  const selector = Cluster.compositionSelector(composition.id);
  const bound = Rollout.watchBoundMs(operation.observations, deps.settings);
  const deployments = !forks.length
    ? []
    : bound > 0
      ? await cluster.watchDeployments(
          composition.namespace,
          selector,
          (seen) => Rollout.rolloutComplete(seen, forks),
          bound,
        )
      : // A later look: the watch cache is fresh enough for a recheck every few seconds.
        await cluster.listDeployments(composition.namespace, selector, { cached: true });
  if (Rollout.rolloutComplete(deployments, forks)) {
    context.seen.forks = deployments;
    return routeToForks(context, target);
  }
  const stalled = Rollout.progressDeadlineFailure(deployments, forks);
  if (stalled) return stalled;
  const pods = await cluster.listPods(composition.namespace, selector, { cached: bound === 0 });
  return Rollout.rolloutWait({
    forks,
    deployments,
    pods,
    observations: operation.observations,
    now: deps.clock.now(),
    failureGraceMs: deps.settings.failureGraceMs,
    recheckDelaySeconds: deps.settings.recheckDelaySeconds,
    operationStart: operation.created_at,
  });
};

/**
 * Every fork is rolled out: a mesh route per fork, and the public route — to the entry's fork when
 * the entry is overridden — whose answers are no longer marked pending.
 */
async function routeToForks(
  context: StepContext,
  target: Rollout.RolloutTarget,
): Promise<Rollout.StepOutcome> {
  const { cluster, composition } = context;
  await context.fence();
  const name = Cluster.anchorName(composition.id);
  // apply answered the anchor seconds ago when it ran in this invocation; else it is read (it may
  // have gone since, which fails the rollout).
  const anchorObject =
    context.seen.anchor ??
    (await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: composition.namespace, name }));
  if (!anchorObject) {
    return Rollout.rolloutFailure(
      Rollout.RolloutBlockerCode.AnchorMissing,
      `the composition's anchor ConfigMap ${name} disappeared`,
    );
  }
  const owner = Cluster.ownerReference(anchorObject);
  const { baseline } = target;
  await Promise.all([
    ...target.forks.map(({ component, profile }) =>
      cluster.apply(
        Cluster.meshRoute({
          id: composition.id,
          component,
          profile,
          baseline,
          owner,
          sleeps: Boolean(composition.sleep),
        }),
      ),
    ),
    cluster.apply(Rollout.entryRoute(composition, target, owner, sleepRouting(context.deps, composition))),
  ]);
  return { kind: 'done' };
}
