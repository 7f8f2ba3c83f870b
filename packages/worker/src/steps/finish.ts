import { Cluster, Operations, Rollout } from '@svc/core';
import { isolate } from '../isolation.ts';
import { readTarget, type Step } from './step.ts';

/**
 * Create and update end here: ready, with what is observed now. Safe to repeat: the runner writes
 * the result conditional on the composition's `lock_version`.
 */
const finishRollout: Step = async (context) => {
  const { deps, cluster, composition, operation } = context;
  const target = await readTarget(context);
  if ('kind' in target) return target;
  const isolation = await isolate(deps, composition, target.baseline, target.profiles);
  // await-rollout and verify ran in this invocation unless the chain was handed to a new message.
  const forks =
    context.seen.forks ??
    (await cluster.listDeployments(composition.namespace, Cluster.compositionSelector(composition.id)));
  const latestCheck =
    context.seen.check ?? (await deps.checks.list(composition.id, { limit: 1, after: null })).items[0];
  const now = deps.clock.now();
  return {
    kind: 'done',
    composition: Rollout.rolloutFinished({
      composition,
      operation,
      forks,
      latestCheck,
      subscriptions: isolation.subscriptions,
      now,
    }),
  };
};

/** A destroy ends destroyed, with nothing observed. */
const finishDestroy: Step = async ({ deps, composition }) => ({
  kind: 'done',
  composition: Rollout.destroyFinished(composition, deps.clock.now()),
});

export const finish: Step = (context) =>
  context.operation.kind === Operations.OperationKind.Destroy
    ? finishDestroy(context)
    : finishRollout(context);
