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
 *
 * Each channel is claimed on the record before any call (its fingerprint, and id 0 for one being
 * created), so two concurrent convergences never create two of either; what the calls answered is
 * then stored over the latest record, and a channel whose call failed gives its claim back.
 */
import { contentHash } from '../canonical.ts';
import type { Blocker } from '../compositions/model.ts';
import { checkRunFor, commentFor, isSettled } from './feedback.ts';
import { type Feedback, type PreviewRecord, PreviewState } from './model.ts';
import type { CheckRunInput } from './ports.ts';

export interface FeedbackPlan {
  /** The check run to write: `id` null creates one on the head commit. */
  checkRun: { id: number | null; run: CheckRunInput } | null;
  /** The comment to write: `id` null creates it (or finds a lost one by its marker). */
  comment: { id: number | null; body: string } | null;
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

/**
 * What to write for `preview`, given what was written (`previous`); null when nothing. `takeOver`:
 * a claim on the record is old enough to have been left by a convergence that died.
 */
export function planFeedback(
  previous: Feedback,
  preview: PreviewRecord,
  blockers: readonly Blocker[],
  takeOver: boolean,
): FeedbackPlan | null {
  const claim: Feedback = { ...previous };
  let checkRun: FeedbackPlan['checkRun'] = null;
  let comment: FeedbackPlan['comment'] = null;

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

  if (isSettled(preview.state) && !creating(previous.comment_id, takeOver)) {
    const body = commentFor(preview, blockers);
    const bodyPrint = contentHash(body);
    if (due(bodyPrint, previous.comment_fingerprint, previous.comment_id, takeOver)) {
      const id = previous.comment_id || null;
      comment = { id, body };
      Object.assign(claim, { comment_id: id ?? 0, comment_fingerprint: bodyPrint });
    }
  }
  return checkRun || comment ? { checkRun, comment, claim } : null;
}

/** What the calls of a plan answered: the id written per channel, or the call's failure. */
export interface FeedbackSent {
  checkRun: { id: number } | { failed: unknown } | null;
  comment: { id: number } | { failed: unknown } | null;
}

const checkRunFields = (f: Feedback) => [
  f.check_run_id,
  f.check_run_sha,
  f.check_run_fingerprint,
  f.check_run_open,
];
const commentFields = (f: Feedback) => [f.comment_id, f.comment_fingerprint];
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
  return next;
}
