/** Watching a namespace's Deployments until what they show is enough, within a time bound. */
import type { Cluster } from '@svc/core';
import { type ClusterContext, plain, resourcePath } from './context.ts';
import { listObjects } from './objects.ts';

type Done = (deployments: Cluster.Deployment[]) => boolean;

interface Round {
  finished: boolean;
  /** What the round's events showed last; `seen` false when it had none. */
  latest: Cluster.Deployment[];
  seen: boolean;
  /** Whether the watch got through at all (every match arrived as an ADDED event). */
  watched: boolean;
}

/**
 * One watch, until `done`, the deadline, or the watch closing. A watch without a resourceVersion
 * starts with every matching object as an ADDED event, so it needs no list before it.
 */
function watchRound(
  context: ClusterContext,
  namespace: string,
  labelSelector: string,
  done: Done,
  deadline: number,
): Promise<Round> {
  const byName = new Map<string, Cluster.Deployment>();
  const round: Round = { finished: false, latest: [], seen: false, watched: false };
  return new Promise<Round>((resolve) => {
    let settled = false;
    let controller: AbortController | undefined;
    const settle = (finished: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      controller?.abort();
      resolve({ ...round, finished });
    };
    const timer = setTimeout(() => settle(false), Math.max(0, deadline - Date.now()));
    const onEvent = (type: string, object: unknown) => {
      if (type === 'BOOKMARK') return;
      const deployment = { ...plain<Cluster.Deployment>(object), apiVersion: 'apps/v1', kind: 'Deployment' };
      if (type === 'DELETED') byName.delete(deployment.metadata.name);
      else byName.set(deployment.metadata.name, deployment);
      round.latest = [...byName.values()];
      round.seen = true;
      if (done(round.latest)) settle(true);
    };
    context
      .current()
      .then((c) =>
        c.watch.watch(
          resourcePath('apps/v1', 'deployments', namespace),
          { labelSelector, allowWatchBookmarks: true },
          onEvent,
          // A closed or failed watch ends this round; the caller watches again.
          () => settle(false),
        ),
      )
      .then((c) => {
        round.watched = true;
        controller = c;
        if (settled) c.abort();
      })
      .catch(() => setTimeout(() => settle(false), 50));
  });
}

export async function watchDeployments(
  context: ClusterContext,
  namespace: string,
  labelSelector: string,
  done: Done,
  timeoutMs: number,
): Promise<Cluster.Deployment[]> {
  const deadline = Date.now() + timeoutMs;
  let latest: Cluster.Deployment[] = [];
  let watched = false;
  while (Date.now() < deadline) {
    const round = await watchRound(context, namespace, labelSelector, done, deadline);
    if (round.seen) latest = round.latest;
    watched ||= round.watched;
    if (round.finished) return latest;
  }
  // A watch that got through sent every match: nothing more to see. If none did, a list says what
  // there is (or why the cluster cannot answer).
  return watched
    ? latest
    : (await listObjects<Cluster.Deployment>(context, namespace, 'apps/v1', 'Deployment', labelSelector))
        .items;
}
