/**
 * What the convergence of one pull request and that of a change of several share: reading the
 * builds and the composition as they are now, and writing feedback to a pull request.
 */
import { type CompositionRecord, effectivePhase, Phase } from '../compositions/model.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { blockersOfChange, type ChangeMember } from './change-model.ts';
import type { Decision, ObservedComposition } from './converge.ts';
import { commentMarker } from './feedback.ts';
import { type FeedbackPlan, type FeedbackSent, planFeedback, settleFeedback } from './feedback-writes.ts';
import {
  type FeedbackMode,
  noFeedback,
  type PreviewPolicy,
  type PreviewRecord,
  PreviewState,
  type PullRequest,
  previewId,
} from './model.ts';
import type { ForgeDeps, ForgePort } from './ports.ts';
export interface PullRequestRef {
  project: string;
  repository: string;
  number: number;
}

export const maxRaces = 4;

export function requireForge(deps: Pick<ForgeDeps, 'forge'>): ForgePort {
  if (!deps.forge) {
    throw new ProblemError(ErrorCode.ForgeNotConfigured, 'No GitHub App is configured on this installation.');
  }
  return deps.forge;
}

/** The builds CI published for `sha`, per component the policy names (the newest of each). */
export async function buildsOf(deps: ForgeDeps, policy: PreviewPolicy | null, sha: string | undefined) {
  const found: Record<string, string> = {};
  if (!policy || !sha) return found;
  await Promise.all(
    policy.components.map(async (component) => {
      const page = await deps.builds.list(
        policy.project,
        { component, repository: policy.repository, commit_sha: sha },
        { limit: 1, after: null },
      );
      const build = page.items[0];
      if (build) found[component] = build.id;
    }),
  );
  return found;
}

export function observedComposition(record: CompositionRecord | null, now: Date): ObservedComposition | null {
  if (!record) return null;
  const builds: Record<string, string> = {};
  for (const [component, selector] of Object.entries(record.overrides)) {
    if (selector.build_id) builds[component] = selector.build_id;
  }
  return { phase: effectivePhase(record, now), builds };
}

export function freshRecord(ref: PullRequestRef, pr: PullRequest, now: string): PreviewRecord {
  return {
    id: previewId(ref.project, ref.repository, ref.number),
    project: ref.project,
    repository: ref.repository,
    number: ref.number,
    state: PreviewState.WaitingForBuild,
    head_sha: pr.head_sha,
    head_ref: pr.head_ref,
    fork: pr.fork,
    builds: {},
    deployed_sha: null,
    composition_id: null,
    change_id: null,
    url: null,
    expires_at: null,
    last_error: null,
    suppressed: false,
    restart_pending: false,
    feedback: noFeedback,
    poll_at: null,
    created_at: now,
    updated_at: now,
    lock_version: 0,
  };
}

export const overridesOf = (builds: Record<string, string>) =>
  Object.fromEntries(Object.entries(builds).map(([component, build_id]) => [component, { build_id }]));

/** A claim older than this was left by a convergence that died: it may be taken over. */
const claimExpiryMs = 60_000;

/**
 * Writes the check run and the comment where what they say changed (planFeedback). The channels to
 * write are claimed on the record first (a conditional write), so of concurrent convergences only
 * one makes each call; a first comment or check run is claimed with id 0 until it exists, so two
 * can never be created. Ids are stored afterwards; a lost comment id is found again by its marker.
 * A change's pull requests (`change`) are each told which component failed and whose build it runs.
 */
export async function writeFeedback(
  deps: ForgeDeps,
  forge: ForgePort,
  record: PreviewRecord,
  composition: CompositionRecord | null,
  mode: FeedbackMode,
  change: readonly ChangeMember[] | null = null,
): Promise<PreviewRecord> {
  const failed = composition && record.state === PreviewState.Failed && composition.phase === Phase.Failed;
  const observed = failed ? composition.observed.blockers : [];
  const blockers = change ? blockersOfChange(observed, change) : observed;
  const now = deps.clock.now();
  const takeOver = now.getTime() - Date.parse(record.updated_at) > claimExpiryMs;
  const consoleOrigin = deps.forgeSettings.consoleOrigin;
  const plan = planFeedback(record.feedback, record, blockers, takeOver, { mode, consoleOrigin });
  if (!plan) return record;
  // Stamped, so that a claim is taken over a minute after it was made, not after the last save.
  const claimed: PreviewRecord = {
    ...record,
    feedback: plan.claim,
    updated_at: now.toISOString(),
    lock_version: record.lock_version + 1,
  };
  // Lost: another convergence moved the record, and writes the feedback of what it moved it to.
  if (!(await deps.forgeStore.putPreview(claimed, record.lock_version))) return record;
  const sent = await sendFeedback(forge, record, plan);
  const stored = await storeFeedback(deps, record, claimed, plan, sent);
  // A rate limit, say: the job is retried later, and writes what was given back.
  for (const result of [sent.checkRun, sent.comment, sent.deployment])
    if (result && 'failed' in result) throw result.failed;
  if (!stored.written) return stored.record;
  // Convergences that moved the preview meanwhile left their feedback to this one.
  const moved = stored.record.state !== record.state || stored.record.head_sha !== record.head_sha;
  return moved ? writeFeedback(deps, forge, stored.record, composition, mode, change) : stored.record;
}

/** Makes the planned calls side by side; one channel's failure does not undo the other's write. */
async function sendFeedback(
  forge: ForgePort,
  record: PreviewRecord,
  plan: FeedbackPlan,
): Promise<FeedbackSent> {
  const settle = (call: Promise<number>) =>
    call.then(
      (id) => ({ id }),
      (failed: unknown) => ({ failed }),
    );
  const { checkRun, comment, deployment } = plan;
  const [runResult, commentResult, deploymentResult] = await Promise.all([
    checkRun ? settle(forge.upsertCheckRun(record.repository, checkRun.id, checkRun.run)) : null,
    comment
      ? settle(
          forge.upsertComment(record.repository, record.number, {
            id: comment.id,
            marker: commentMarker(record.id),
            body: comment.body,
          }),
        )
      : null,
    deployment ? sendDeployment(forge, record.repository, deployment) : null,
  ]);
  return { checkRun: runResult, comment: commentResult, deployment: deploymentResult };
}

/**
 * The deployment's calls, in an order a retry can repeat: the replaced deployment made inactive
 * (again, harmlessly), then the new one created, then its status; a failure after the creation
 * reports the deployment created, so the retry writes only its status.
 */
async function sendDeployment(
  forge: ForgePort,
  repository: string,
  plan: NonNullable<FeedbackPlan['deployment']>,
): Promise<FeedbackSent['deployment']> {
  let created: number | null = null;
  try {
    if (plan.supersedes !== null) {
      const replaced = {
        state: 'inactive',
        description: 'Replaced by a newer commit',
        environment_url: null,
        log_url: null,
      } as const;
      await forge.createDeploymentStatus(repository, plan.supersedes, replaced);
    }
    if (plan.create) created = await forge.createDeployment(repository, plan.create);
    const id = created ?? plan.id;
    if (id === null) throw new Error('a deployment status needs a deployment');
    await forge.createDeploymentStatus(repository, id, plan.status);
    return { id };
  } catch (failed) {
    return { failed, created };
  }
}

/**
 * Stores what the calls answered on the latest record (others may have moved it meanwhile): the
 * record written, or the latest read when the races ran out (the claimed one when the preview is
 * gone).
 */
async function storeFeedback(
  deps: ForgeDeps,
  record: PreviewRecord,
  claimed: PreviewRecord,
  plan: FeedbackPlan,
  sent: FeedbackSent,
): Promise<{ written: boolean; record: PreviewRecord }> {
  let latest: PreviewRecord | null = claimed;
  for (let attempt = 0; attempt < maxRaces && latest; attempt++) {
    const next: PreviewRecord = {
      ...latest,
      feedback: settleFeedback(latest.feedback, record.feedback, plan, sent),
      lock_version: latest.lock_version + 1,
    };
    if (await deps.forgeStore.putPreview(next, latest.lock_version)) return { written: true, record: next };
    latest = await deps.forgeStore.getPreview(record.id);
  }
  return { written: false, record: latest ?? claimed };
}

export interface Converged {
  decision: Decision;
  preview: PreviewRecord | null;
}
