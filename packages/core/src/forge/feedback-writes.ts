/**
 * Which channels a preview's change writes to the pull request, decided from what was last written
 * (the record's `feedback`) and the preview as it is now: a call only when what a person sees
 * changes. GitHub allows an installation 500 content-creating requests an hour, so every write a
 * preview saves is a preview more an hour (docs/capacity.md).
 *
 * - The check run speaks of the head commit: created for a new head commit, updated when what it
 *   says changes while it is open (queued, in progress). A completed run is never edited, since
 *   GitHub keeps its status and conclusion: a change after it (a restart, a stop) is a new run on
 *   the commit, which the pull request shows in its place. A stopped preview's pushes get none:
 *   the stop was told once.
 * - The comment speaks of the preview at its URL: written only once the preview settles (ready,
 *   failed, stopped, expired); the first comment is created then.
 * - The deployment (where the policy asks for one) speaks of the head commit as the check run does:
 *   a new head commit gets a deployment of its own, the one before it made `inactive` first (its
 *   environment is transient, so GitHub leaves that to us); a status is written when what it says
 *   changes. A preview that no longer runs makes its deployment inactive and creates none.
 *
 * Each channel is claimed on the record before any call (its fingerprint, and id 0 for one being
 * created), so two concurrent convergences never create two of either; what the calls answered is
 * then stored over the latest record, and a channel whose call failed gives its claim back.
 */
import { contentHash } from '../canonical.ts';
import type { Blocker } from '../compositions/model.ts';
import { checkRunFor, commentFor, deploymentFor, deploymentStatusFor, isSettled } from './feedback.ts';
import { type Feedback, FeedbackMode, type PreviewRecord, PreviewState } from './model.ts';
import type { CheckRunInput, DeploymentInput, DeploymentStatusInput } from './ports.ts';

export interface FeedbackPlan {
  /** The check run to write: `id` null creates one on the head commit. */
  checkRun: { id: number | null; run: CheckRunInput } | null;
  /** The comment to write: `id` null creates it (or finds a lost one by its marker). */
  comment: { id: number | null; body: string } | null;
  /**
   * The deployment status to write: on deployment `id`, or on one created first (`create`), after
   * the deployment it replaces (`supersedes`) was made inactive.
   */
  deployment: {
    id: number | null;
    create: DeploymentInput | null;
    supersedes: number | null;
    status: DeploymentStatusInput;
  } | null;
  /** The feedback to claim on the record before any call. */
  claim: Feedback;
}

/** An id of 0: another convergence is creating it; left alone unless that one died (`takeOver`). */
const creating = (id: number | null, takeOver: boolean) => id === 0 && !takeOver;

/**
 * A stopped preview whose check run already said so on an earlier commit: pushes to its pull
 * request (unlabelled, say) get no run of their own, since nothing of theirs runs.
 */
function stopAlreadyTold(previous: Feedback, preview: PreviewRecord): boolean {
  if (preview.state !== PreviewState.Stopped || previous.check_run_sha === null) return false;
  const told = checkRunFor({ ...preview, head_sha: previous.check_run_sha }, []);
  return contentHash(told) === previous.check_run_fingerprint;
}

/** A channel says something new, or its creation was claimed by a convergence that died before it. */
const due = (print: string, written: string | null, id: number | null, takeOver: boolean) =>
  print !== written || (id === 0 && takeOver);

/** Where the feedback goes (the policy's `feedback`) and the service's public origin, for the console's links. */
export interface FeedbackChannels {
  mode?: FeedbackMode;
  consoleOrigin?: string | null;
}

/**
 * What to write for `preview`, given what was written (`previous`); null when nothing. `takeOver`:
 * a claim on the record is old enough to have been left by a convergence that died.
 */
export function planFeedback(
  previous: Feedback,
  preview: PreviewRecord,
  blockers: readonly Blocker[],
  takeOver: boolean,
  channels: FeedbackChannels = {},
): FeedbackPlan | null {
  const { mode = FeedbackMode.Comment, consoleOrigin = null } = channels;
  const claim: Feedback = { ...previous };
  let checkRun: FeedbackPlan['checkRun'] = null;
  let comment: FeedbackPlan['comment'] = null;
  // A policy that stopped asking for deployments (or is gone) still has the last one made inactive.
  const wanted = mode !== FeedbackMode.Comment;
  const deployment = planDeployment(previous, preview, blockers, takeOver, { wanted, consoleOrigin });
  if (deployment) Object.assign(claim, deployment.claim);

  const run = checkRunFor(preview, blockers);
  const runPrint = contentHash(run);
  const runDue = due(runPrint, previous.check_run_fingerprint, previous.check_run_id, takeOver);
  if (runDue && !creating(previous.check_run_id, takeOver) && !stopAlreadyTold(previous, preview)) {
    const openOnCommit = previous.check_run_sha === preview.head_sha && previous.check_run_open;
    const id = openOnCommit ? previous.check_run_id : null;
    checkRun = { id, run };
    Object.assign(claim, {
      check_run_id: id ?? 0,
      check_run_sha: preview.head_sha,
      check_run_fingerprint: runPrint,
      check_run_open: run.status !== 'completed',
    });
  }

  const comments = mode !== FeedbackMode.Deployment;
  if (comments && isSettled(preview.state) && !creating(previous.comment_id, takeOver)) {
    const body = commentFor(preview, blockers);
    const bodyPrint = contentHash(body);
    if (due(bodyPrint, previous.comment_fingerprint, previous.comment_id, takeOver)) {
      const id = previous.comment_id || null;
      comment = { id, body };
      Object.assign(claim, { comment_id: id ?? 0, comment_fingerprint: bodyPrint });
    }
  }
  return checkRun || comment || deployment
    ? { checkRun, comment, deployment: deployment?.write ?? null, claim }
    : null;
}

/** The deployment channel's write and claim, or null when it has nothing new to say. */
function planDeployment(
  previous: Feedback,
  preview: PreviewRecord,
  blockers: readonly Blocker[],
  takeOver: boolean,
  { wanted, consoleOrigin }: { wanted: boolean; consoleOrigin: string | null },
): { write: NonNullable<FeedbackPlan['deployment']>; claim: Partial<Feedback> } | null {
  if (creating(previous.deployment_id, takeOver)) return null;
  const status = deploymentStatusFor(preview, blockers, consoleOrigin);
  if (!wanted && status.state !== 'inactive') return null;
  const print = contentHash(status);
  const existing = previous.deployment_id || null;
  const onHead = existing !== null && previous.deployment_sha === preview.head_sha;
  if (status.state === 'inactive') {
    // Nothing runs: the last deployment says so, and a new head commit gets none.
    if (existing === null || !due(print, previous.deployment_fingerprint, existing, takeOver)) return null;
    return {
      write: { id: existing, create: null, supersedes: null, status },
      claim: { deployment_fingerprint: print },
    };
  }
  if (onHead) {
    if (!due(print, previous.deployment_fingerprint, existing, takeOver)) return null;
    return {
      write: { id: existing, create: null, supersedes: null, status },
      claim: { deployment_fingerprint: print },
    };
  }
  return {
    write: { id: null, create: deploymentFor(preview), supersedes: existing, status },
    claim: { deployment_id: 0, deployment_sha: preview.head_sha, deployment_fingerprint: print },
  };
}

/** What the calls of a plan answered: the id written per channel, or the call's failure. */
export interface FeedbackSent {
  checkRun: { id: number } | { failed: unknown } | null;
  comment: { id: number } | { failed: unknown } | null;
  /** `created`: the deployment made before a later call of the channel failed. */
  deployment: { id: number } | { failed: unknown; created: number | null } | null;
}

const checkRunFields = (f: Feedback) => [
  f.check_run_id,
  f.check_run_sha,
  f.check_run_fingerprint,
  f.check_run_open,
];
const commentFields = (f: Feedback) => [f.comment_id, f.comment_fingerprint];
const deploymentFields = (f: Feedback) => [f.deployment_id, f.deployment_sha, f.deployment_fingerprint];
const same = (a: unknown[], b: unknown[]) => a.every((value, i) => value === b[i]);

/**
 * The feedback to store after the calls, over `latest` (other convergences may have claimed since):
 * the ids written, and for a channel whose call failed the previous feedback back while the claim
 * there is still this one's, so a retry (after a rate limit, say) writes it again.
 */
export function settleFeedback(
  latest: Feedback,
  previous: Feedback,
  plan: FeedbackPlan,
  sent: FeedbackSent,
): Feedback {
  const next: Feedback = { ...latest };
  if (sent.checkRun && 'id' in sent.checkRun) {
    // Unless a newer head commit was claimed meanwhile: this run is then on an older commit.
    if (latest.check_run_sha === plan.claim.check_run_sha) next.check_run_id = sent.checkRun.id;
  } else if (sent.checkRun && same(checkRunFields(latest), checkRunFields(plan.claim))) {
    Object.assign(next, {
      check_run_id: previous.check_run_id,
      check_run_sha: previous.check_run_sha,
      check_run_fingerprint: previous.check_run_fingerprint,
      check_run_open: previous.check_run_open,
    });
  }
  if (sent.comment && 'id' in sent.comment) {
    next.comment_id = sent.comment.id;
  } else if (sent.comment && same(commentFields(latest), commentFields(plan.claim))) {
    Object.assign(next, {
      comment_id: previous.comment_id,
      comment_fingerprint: previous.comment_fingerprint,
    });
  }
  Object.assign(next, settledDeployment(latest, previous, plan.claim, sent.deployment));
  return next;
}

/** The deployment channel after its calls; nothing when the claim there is no longer this one's. */
function settledDeployment(
  latest: Feedback,
  previous: Feedback,
  claim: Feedback,
  sent: FeedbackSent['deployment'],
): Partial<Feedback> {
  if (!sent || !same(deploymentFields(latest), deploymentFields(claim))) return {};
  if ('id' in sent) return { deployment_id: sent.id };
  // A deployment was created but its status was not written: kept, so the retry writes only the status.
  if (sent.created !== null) return { deployment_id: sent.created, deployment_fingerprint: null };
  return {
    deployment_id: previous.deployment_id,
    deployment_sha: previous.deployment_sha,
    deployment_fingerprint: previous.deployment_fingerprint,
  };
}
