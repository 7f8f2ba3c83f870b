import { Cluster, Compositions } from '@svc/core';
import { readTarget, type Step, type StepContext } from './step.ts';

/**
 * Waits on the forks' Deployment conditions (a bounded watch), then routes keyed and public traffic
 * to them. Safe to repeat: it re-reads the cluster, and applies are idempotent.
 */
export const awaitRollout: Step = async (context) => {
  const { deps, composition, operation } = context;
  const target = await readTarget(context);
  if ('kind' in target) return target;
  const { forks } = target;
  const selector = Cluster.compositionSelector(composition.id);
  const bound = Compositions.watchBoundMs(operation.observations, deps.clock.now(), deps.settings);
  const deployments = forks.length
    ? await deps.cluster.watchDeployments(
        composition.namespace,
        selector,
        (seen) => Compositions.rolloutComplete(seen, forks),
        bound,
      )
    : [];
  if (Compositions.rolloutComplete(deployments, forks)) return routeToForks(context, target);
  const stalled = Compositions.progressDeadlineFailure(deployments, forks);
  if (stalled) return stalled;
  const pods = await deps.cluster.listPods(composition.namespace, selector);
  return Compositions.rolloutWait({
    forks,
    deployments,
    pods,
    observations: operation.observations,
    now: deps.clock.now(),
    failureGraceMs: deps.settings.failureGraceMs,
    operationStart: operation.created_at,
  });
};

/** Every fork is rolled out: a mesh route per fork, and the public route (to the entry's fork if overridden). */
async function routeToForks(
  context: StepContext,
  target: Compositions.RolloutTarget,
): Promise<Compositions.StepOutcome> {
  const { deps, composition } = context;
  await context.fence();
  const name = Cluster.anchorName(composition.id);
  const anchorObject = await deps.cluster.get({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: composition.namespace,
    name,
  });
  if (!anchorObject) {
    return Compositions.rolloutFailure(
      Compositions.RolloutBlockerCode.AnchorMissing,
      `the composition's anchor ConfigMap ${name} disappeared`,
    );
  }
  const owner = Cluster.ownerReference(anchorObject);
  const { baseline } = target;
  await Promise.all([
    ...target.forks.map(({ component, profile }) =>
      deps.cluster.apply(Cluster.meshRoute({ id: composition.id, component, profile, baseline, owner })),
    ),
    deps.cluster.apply(Compositions.entryRoute(composition, target, owner)),
  ]);
  return { kind: 'done' };
}
