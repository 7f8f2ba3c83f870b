import { Checks, IdPrefix, newId } from '@svc/core';
import type { WorkerDeps } from '../deps.ts';
import { readTarget, type Step, sleep } from './step.ts';

/**
 * The routing check: the preview URL must answer, with every overridden component served by its
 * override image. Safe to repeat: each run is a new check, and checks are history.
 */
export const verify: Step = async (context) => {
  const { deps, composition, operation } = context;
  const target = await readTarget(context);
  if ('kind' in target) return target;
  const { path, expect_status } = target.entry.verification;
  const url = Checks.routingTarget(composition.public_url, path);
  const images = Object.fromEntries(
    Object.entries(composition.desired.images).map(([component, { image }]) => [component, image]),
  );
  const { ran_at, verdict } = url
    ? await probeUntilPassed(deps, url, images, expect_status)
    : { ran_at: deps.clock.now().toISOString(), verdict: Checks.offPreviewVerdict(path, images) };
  // The forks as await-rollout saw them rolled out, when it ran in this invocation.
  const seen = { forks: context.seen.forks };
  const print = await Checks.fingerprint(context.cluster, target.catalog, composition, seen).catch(() => ({
    inputs: {},
    hash: 'unreadable',
  }));
  const check: Checks.CheckRecord = {
    id: newId(IdPrefix.Check),
    composition_id: composition.id,
    kind: Checks.CheckKind.Routing,
    generation: operation.generation,
    ran_at,
    target: url ?? composition.public_url,
    ...verdict,
    fingerprint: print,
  };
  // Written with the chain's next write, beside the step's progress.
  context.seen.check = check;
  return { kind: 'done', check };
};

/** Probes up to `verifyAttempts` times, backing off, since routes may take a moment to propagate. */
async function probeUntilPassed(
  deps: WorkerDeps,
  url: string,
  images: Record<string, string>,
  expectStatus: number,
): Promise<{ ran_at: string; verdict: Checks.RoutingVerdict }> {
  for (let attempt = 1; ; attempt++) {
    const ran_at = deps.clock.now().toISOString();
    const verdict = Checks.routingVerdict(await deps.probe(url), images, expectStatus);
    if (verdict.status === Checks.CheckStatus.Passed || attempt >= deps.settings.verifyAttempts) {
      return { ran_at, verdict };
    }
    await sleep(150 * attempt);
  }
}
