/**
 * A sleeping composition's objects beside its forks (docs/sleep.md): the interceptor's grant, and
 * per fork its InterceptorRoute, then its ScaledObject (KEDA wants the route first).
 */
import { Cluster, Compositions } from '@svc/core';
import type { WorkerDeps } from '../deps.ts';

export const sleepKinds = [
  { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject' },
  { apiVersion: 'http.keda.sh/v1beta1', kind: 'InterceptorRoute' },
] as const;

/** How the composition's routes read while its forks may sleep; null when they never do. */
export function sleepRouting(
  deps: Pick<WorkerDeps, 'sleep'>,
  composition: Pick<Compositions.CompositionRecord, 'sleep'>,
): { crawlerPattern: string | null } | null {
  if (!composition.sleep) return null;
  const { crawlerUserAgents } = deps.sleep ?? Compositions.defaultSleepSettings;
  return { crawlerPattern: Compositions.crawlerUserAgentPattern(crawlerUserAgents) };
}

export async function applySleep(
  deps: Pick<WorkerDeps, 'aws' | 'clock'>,
  cluster: Cluster.ClusterPort,
  composition: Compositions.CompositionRecord,
  forks: readonly (Omit<Cluster.SleepingForkInput, 'afterSeconds' | 'sqs' | 'queueUrls' | 'awakeUntil'> & {
    queueUrls: readonly string[];
  })[],
): Promise<void> {
  const sleep = composition.sleep;
  if (!sleep || forks.length === 0) return;
  const region = deps.aws?.settings.region;
  if (!region && forks.some((f) => f.queueUrls.length > 0)) {
    throw new Error('a sleeping fork with isolated queues needs the queues region (WorkerDeps.aws)');
  }
  const sqs = { region: region ?? '', endpoint: deps.aws?.settings.sqsEndpoint ?? null };
  // A rollout during a wake command keeps the forks held up as the command left them.
  const awakeUntil = Compositions.heldAwake(sleep, deps.clock.now()) ? (sleep.awake_until ?? null) : null;
  await cluster.apply(Cluster.interceptorGrant(composition.namespace));
  await Promise.all(
    forks.map(async (fork) => {
      const input = { ...fork, afterSeconds: sleep.after_seconds, sqs, awakeUntil };
      await cluster.apply(Cluster.interceptorRoute(input));
      await cluster.apply(Cluster.scaledObject(input));
    }),
  );
}
