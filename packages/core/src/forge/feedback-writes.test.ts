import { describe, expect, it } from 'vitest';
import type { Blocker } from '../compositions/model.ts';
import { previewRecord } from '../testing/fixtures.ts';
import { commentMarker } from './feedback.ts';
import {
  type FeedbackChannels,
  type FeedbackPlan,
  type FeedbackSent,
  planFeedback,
  settleFeedback,
} from './feedback-writes.ts';
import { type Feedback, FeedbackMode, noFeedback, type PreviewRecord, PreviewState } from './model.ts';

const sha1 = '1'.repeat(40);
const sha2 = '2'.repeat(40);
const sha3 = '3'.repeat(40);
const url1 = 'http://c-1.preview.localhost/';
const url2 = 'http://c-2.preview.localhost/';

const nothingWritten = noFeedback;

const preview = (changes: Partial<PreviewRecord> = {}) =>
  previewRecord({ url: url1, expires_at: '2026-01-01T08:00:00.000Z', ...changes });

/** The preview as it reads in each state of one pull request's life. */
const waiting = (head: string, running: Partial<PreviewRecord> = {}) =>
  preview({ state: PreviewState.WaitingForBuild, head_sha: head, builds: {}, url: null, ...running });
const deploying = (head: string, build: string, url: string | null = url1) =>
  preview({ state: PreviewState.Deploying, head_sha: head, builds: { 'service-b': build }, url });
const ready = (head: string, build: string, url = url1) =>
  preview({ head_sha: head, deployed_sha: head, builds: { 'service-b': build }, url });
const stopping = (head: string, build: string) =>
  preview({ state: PreviewState.Stopping, head_sha: head, builds: { 'service-b': build } });
const stopped = (head: string) =>
  preview({ state: PreviewState.Stopped, head_sha: head, builds: {}, url: null, expires_at: null });

const crashing: Blocker[] = [
  { code: 'crash_loop', message: 'service-b crash-loops', component: 'service-b' },
];

/** The forge numbers what it creates, across every walk. */
let nextId = 100;

/**
 * Walks a pull request's preview through `states`, each write succeeding (the forge numbering what
 * it creates): the calls made at each step, and the feedback recorded at the end.
 */
function walk(
  states: PreviewRecord[],
  from: Feedback = nothingWritten,
  blockers: Blocker[] = [],
  channels: FeedbackChannels = {},
) {
  let feedback = from;
  const steps = states.map((state) => {
    const plan = planFeedback(feedback, state, blockers, false, channels);
    if (!plan) return [];
    const { checkRun, comment, deployment } = plan;
    const sent: FeedbackSent = {
      checkRun: checkRun ? { id: checkRun.id ?? nextId++ } : null,
      comment: comment ? { id: comment.id ?? nextId++ } : null,
      deployment: deployment ? { id: deployment.id ?? nextId++ } : null,
    };
    feedback = settleFeedback(plan.claim, feedback, plan, sent);
    return [
      ...(checkRun ? [checkRun.id === null ? 'check run created' : 'check run updated'] : []),
      ...(comment ? [comment.id === null ? 'comment created' : 'comment edited'] : []),
      ...(deployment?.supersedes ? ['deployment made inactive'] : []),
      ...(deployment?.create ? ['deployment created'] : []),
      ...(deployment ? [`deployment ${deployment.status.state}`] : []),
    ];
  });
  return { steps, writes: steps.flat().length, feedback };
}

/** The feedback once the preview of sha1 (build b-1) is ready, its comment and check run written. */
const readyWritten = walk([deploying(sha1, 'b-1'), ready(sha1, 'b-1')]).feedback;

describe('which channels a preview change writes', () => {
  it('opened with its build published: the check run at once, the comment when ready (3 writes)', () => {
    expect(walk([deploying(sha1, 'b-1', null), deploying(sha1, 'b-1'), ready(sha1, 'b-1')]).steps).toEqual([
      ['check run created'],
      [],
      ['check run updated', 'comment created'],
    ]);
  });

  it('opened before its build: queued, in progress, then ready (4 writes)', () => {
    const opened = walk([waiting(sha1), deploying(sha1, 'b-1', null), ready(sha1, 'b-1')]);
    expect(opened.steps).toEqual([
      ['check run created'],
      ['check run updated'],
      ['check run updated', 'comment created'],
    ]);
  });

  it('a push whose build is published: a new check run, then it and the comment once ready (3 writes)', () => {
    const pushed = walk([deploying(sha2, 'b-2'), ready(sha2, 'b-2')], readyWritten);
    expect(pushed.steps).toEqual([['check run created'], ['check run updated', 'comment edited']]);
    expect(pushed.feedback).toMatchObject({ check_run_sha: sha2, comment_id: readyWritten.comment_id });
    expect(pushed.feedback.check_run_id).not.toBe(readyWritten.check_run_id);
  });

  it('a push that waits for its build: the comment keeps saying what is live until the new one is ready (4 writes)', () => {
    const live = { state: PreviewState.WaitingForBuild, builds: { 'service-b': 'b-1' }, url: url1 };
    const pushed = walk([waiting(sha2, live), deploying(sha2, 'b-2'), ready(sha2, 'b-2')], readyWritten);
    expect(pushed.steps).toEqual([
      ['check run created'],
      ['check run updated'],
      ['check run updated', 'comment edited'],
    ]);
  });

  it('a pull request with three pushes costs 3 + 3 × 3 + 2 = 14 writes', () => {
    const life = walk([
      deploying(sha1, 'b-1'),
      ready(sha1, 'b-1'),
      ...[sha2, sha3, '4'.repeat(40)].flatMap((sha, i) => [
        deploying(sha, `b-${i + 2}`),
        ready(sha, `b-${i + 2}`),
      ]),
      stopping('4'.repeat(40), 'b-4'),
      stopped('4'.repeat(40)),
    ]);
    expect(life.writes).toBe(14);
  });

  it('a close: the check run says stopped at once, the comment once stopped (2 writes)', () => {
    const closed = walk([stopping(sha1, 'b-1'), stopped(sha1)], readyWritten);
    // The ready run is completed, and GitHub keeps a completed run as it is: a new run says it.
    expect(closed.steps).toEqual([['check run created'], ['comment edited']]);
    expect(closed.feedback.check_run_id).not.toBe(readyWritten.check_run_id);
  });

  it('edits a run only while it is open: queued and in progress runs are updated, completed ones replaced', () => {
    const inProgress = walk([deploying(sha1, 'b-1')]).feedback;
    expect(inProgress.check_run_open).toBe(true);
    expect(planFeedback(inProgress, ready(sha1, 'b-1'), [], false)?.checkRun?.id).toBe(
      inProgress.check_run_id,
    );
    expect(readyWritten.check_run_open).toBe(false);
    const failedAfter = planFeedback(readyWritten, preview({ state: PreviewState.Failed }), [], false);
    expect(failedAfter?.checkRun?.id).toBeNull();
    expect(failedAfter?.claim).toMatchObject({ check_run_id: 0, check_run_open: false });
  });

  it('pushes to a pull request whose preview is stopped write nothing; labelled again, the new commit gets its run', () => {
    const closed = walk([stopping(sha1, 'b-1'), stopped(sha1)], readyWritten).feedback;
    expect(walk([stopped(sha2), stopped(sha3)], closed).writes).toBe(0);
    expect(walk([waiting(sha3)], closed).steps).toEqual([['check run created']]);
    // Stopped before any run said so (a push and an unlabel at once): the head commit is told.
    const waitingWritten = walk([waiting(sha1)]).feedback;
    expect(walk([stopped(sha2)], waitingWritten).steps).toEqual([['check run created', 'comment created']]);
  });

  it('a restart on the same commit: in progress once, then ready at the new URL', () => {
    const restarting = preview({ state: PreviewState.Restarting, restart_pending: true });
    const restarted = walk(
      [restarting, deploying(sha1, 'b-1', null), deploying(sha1, 'b-1', url2), ready(sha1, 'b-1', url2)],
      readyWritten,
    );
    expect(restarted.steps).toEqual([['check run created'], [], [], ['check run updated', 'comment edited']]);
  });

  it('deploying ↔ restarting on the same commit is no write', () => {
    const inProgress = walk([deploying(sha1, 'b-1')]).feedback;
    expect(planFeedback(inProgress, preview({ state: PreviewState.Restarting }), [], false)).toBeNull();
  });

  it('transitional states never write the comment', () => {
    for (const state of [
      PreviewState.WaitingForBuild,
      PreviewState.Deploying,
      PreviewState.Restarting,
      PreviewState.Stopping,
    ]) {
      const plan = planFeedback(readyWritten, preview({ state, head_sha: sha2 }), [], false);
      expect(plan?.comment, state).toBeNull();
      expect(plan?.checkRun?.id, state).toBeNull();
    }
  });

  it('a preview stopped before it ever ran gets its first comment then', () => {
    const closedEarly = walk([waiting(sha1), stopped(sha1)]);
    expect(closedEarly.steps).toEqual([['check run created'], ['check run updated', 'comment created']]);
  });

  it('failed: the check run concludes failure and the comment lists the blockers', () => {
    const failed = preview({ state: PreviewState.Failed });
    const plan = planFeedback(walk([deploying(sha1, 'b-1')]).feedback, failed, crashing, false);
    expect(plan?.checkRun?.run).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      details_url: url1,
    });
    expect(plan?.checkRun?.run.summary).toContain('crash_loop');
    expect(plan?.comment?.body).toContain('`crash_loop`: service-b crash-loops');
    expect(plan?.comment?.body.startsWith(commentMarker('pr-x'))).toBe(true);
  });

  it('refused: the check run concludes failure and the comment says why, once', () => {
    const refused = preview({
      state: PreviewState.Refused,
      last_error: {
        code: 'change_component_conflict',
        message: 'component web is overridden by both acme/web#7 and acme/web-next#9 <b>',
      },
    });
    const plan = planFeedback(readyWritten, refused, [], false);
    expect(plan?.checkRun?.run).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      title: 'Refused',
    });
    const why =
      'change_component_conflict: component web is overridden by both acme/web#7 and acme/web-next#9  b ';
    expect(plan?.checkRun?.run.summary).toBe(why);
    expect(plan?.comment?.body).toContain(`| Phase | Refused |`);
    expect(plan?.comment?.body).toContain(`- ${why}`);
    expect(walk([refused, refused], readyWritten).steps).toEqual([
      ['check run created', 'comment edited'],
      [],
    ]);
  });

  it('expired: the check run and the comment say so once', () => {
    const expired = walk(
      [preview({ state: PreviewState.Expired }), preview({ state: PreviewState.Expired })],
      readyWritten,
    );
    expect(expired.steps).toEqual([['check run created', 'comment edited'], []]);
  });

  it('the same preview again writes nothing', () => {
    expect(planFeedback(readyWritten, ready(sha1, 'b-1'), [], false)).toBeNull();
  });

  it('a record written before channels had fingerprints writes both once more: the comment by its id, a new run', () => {
    // Whether its run is still open is not known, and a completed one would keep what it says.
    const old: Feedback = { ...nothingWritten, comment_id: 11, check_run_id: 12, check_run_sha: sha1 };
    const plan = planFeedback(old, ready(sha1, 'b-1'), [], false);
    expect(plan?.checkRun?.id).toBeNull();
    expect(plan?.comment?.id).toBe(11);
    const after = walk([ready(sha1, 'b-1'), ready(sha1, 'b-1')], old);
    expect(after.steps).toEqual([['check run created', 'comment edited'], []]);
    // In a transitional state, only the check run: the comment waits for the preview to settle.
    expect(planFeedback(old, deploying(sha1, 'b-1'), [], false)?.comment).toBeNull();
  });

  it('nothing from the forge reaches the feedback: blocker text is reduced to inert characters', () => {
    const hostile: Blocker[] = [
      { code: 'crash_loop', message: '<img src=x> [link](http://evil) `x`', component: null },
    ];
    const plan = planFeedback(nothingWritten, preview({ state: PreviewState.Failed }), hostile, false);
    expect(plan?.comment?.body).not.toMatch(/<img|\[link\]|`x`/);
    expect(plan?.checkRun?.run.summary).not.toMatch(/<img|\[link\]/);
  });
});

describe('the claim and what is stored after the calls', () => {
  it('claims a channel being created with id 0, so no other convergence creates it too', () => {
    const plan = planFeedback(nothingWritten, ready(sha1, 'b-1'), [], false) as FeedbackPlan;
    expect(plan.claim).toMatchObject({ comment_id: 0, check_run_id: 0, check_run_sha: sha1 });
    expect(plan.claim.comment_fingerprint).not.toBeNull();
    expect(plan.claim.check_run_fingerprint).not.toBeNull();
  });

  it('leaves a channel another convergence is creating alone, unless that claim is old enough to take over', () => {
    const creating = planFeedback(nothingWritten, ready(sha1, 'b-1'), [], false) as FeedbackPlan;
    const later = preview({ state: PreviewState.Failed });
    expect(planFeedback(creating.claim, later, crashing, false)).toBeNull();
    const takenOver = planFeedback(creating.claim, later, crashing, true);
    expect(takenOver?.checkRun?.id).toBeNull();
    expect(takenOver?.comment?.id).toBeNull();
  });

  it('takes over a creation claimed by a convergence that died, even when the preview has not changed since', () => {
    const died = (planFeedback(nothingWritten, ready(sha1, 'b-1'), [], false) as FeedbackPlan).claim;
    expect(planFeedback(died, ready(sha1, 'b-1'), [], false)).toBeNull();
    const takenOver = planFeedback(died, ready(sha1, 'b-1'), [], true);
    expect(takenOver?.checkRun?.id).toBeNull();
    expect(takenOver?.comment?.id).toBeNull();
    expect(planFeedback(readyWritten, ready(sha1, 'b-1'), [], true)).toBeNull();
  });

  it('a check-run write goes on while the first comment is being created', () => {
    const inProgress = walk([deploying(sha1, 'b-1')]).feedback;
    const creatingComment = { ...inProgress, comment_id: 0 };
    const plan = planFeedback(creatingComment, ready(sha1, 'b-1'), [], false);
    expect(plan?.checkRun?.id).toBe(inProgress.check_run_id);
    expect(plan?.comment).toBeNull();
  });

  it('stores the ids the calls answered', () => {
    const plan = planFeedback(nothingWritten, ready(sha1, 'b-1'), [], false) as FeedbackPlan;
    const stored = settleFeedback(plan.claim, nothingWritten, plan, {
      checkRun: { id: 5 },
      comment: { id: 6 },
      deployment: null,
    });
    expect(stored).toEqual({ ...plan.claim, check_run_id: 5, comment_id: 6 });
  });

  it('gives a failed channel its claim back and keeps the channel written', () => {
    const plan = planFeedback(nothingWritten, ready(sha1, 'b-1'), [], false) as FeedbackPlan;
    const sent = { checkRun: { id: 5 }, comment: { failed: new Error('rate limited') }, deployment: null };
    const stored = settleFeedback(plan.claim, nothingWritten, plan, sent);
    expect(stored).toEqual({ ...plan.claim, check_run_id: 5, comment_id: null, comment_fingerprint: null });
    // The retry writes the comment only.
    const retry = planFeedback(stored, ready(sha1, 'b-1'), [], false);
    expect(retry?.checkRun).toBeNull();
    expect(retry?.comment?.id).toBeNull();
  });

  it('does not undo a newer claim, nor give an older commit’s run id to a newer head', () => {
    const plan = planFeedback(readyWritten, deploying(sha2, 'b-2'), [], false) as FeedbackPlan;
    const newer = (planFeedback(plan.claim, waiting(sha3), [], true) as FeedbackPlan).claim;
    expect(
      settleFeedback(newer, readyWritten, plan, { checkRun: { id: 9 }, comment: null, deployment: null }),
    ).toEqual(newer);
    expect(
      settleFeedback(newer, readyWritten, plan, {
        checkRun: { failed: 'x' },
        comment: null,
        deployment: null,
      }),
    ).toEqual(newer);
  });
});

describe('the deployment channel', () => {
  const both = { mode: FeedbackMode.Both };

  it('a deployment per head commit: queued, in progress, success with the preview URL; the one before made inactive', () => {
    const walked = walk(
      [
        waiting(sha1),
        deploying(sha1, 'b-1', null),
        ready(sha1, 'b-1'),
        deploying(sha2, 'b-2'),
        ready(sha2, 'b-2'),
      ],
      nothingWritten,
      [],
      { mode: FeedbackMode.Deployment },
    );
    expect(walked.steps).toEqual([
      ['check run created', 'deployment created', 'deployment queued'],
      ['check run updated', 'deployment in_progress'],
      ['check run updated', 'deployment success'],
      ['check run created', 'deployment made inactive', 'deployment created', 'deployment in_progress'],
      ['check run updated', 'deployment success'],
    ]);
    expect(walked.feedback).toMatchObject({ deployment_sha: sha2, comment_id: null });
  });

  it('says success with the preview URL, in an environment of the branch, and nothing from the forge but it', () => {
    const plan = planFeedback(nothingWritten, ready(sha1, 'b-1', url1), [], false, both) as FeedbackPlan;
    expect(plan.deployment).toEqual({
      id: null,
      create: { sha: sha1, environment: 'preview/feature', description: 'Preview of pull request #7' },
      supersedes: null,
      status: { state: 'success', description: 'Ready', environment_url: url1, log_url: null },
    });
    expect(plan.comment).not.toBeNull();
    const odd = ready(sha1, 'b-1', url1);
    const named = planFeedback(nothingWritten, { ...odd, head_ref: 'feat/<b>"x"' }, [], false, both);
    expect(named?.deployment?.create?.environment).toBe('preview/feat/-b--x-');
    const fork = planFeedback(nothingWritten, { ...odd, fork: true, head_ref: 'main' }, [], false, both);
    expect(fork?.deployment?.create?.environment).toBe('preview/pr-7');
  });

  it("links each status to the console's page of the composition (of the preview before it has one) when the service's origin is known", () => {
    const origin = 'https://svc.acme.io';
    const linked = { ...both, consoleOrigin: origin };
    const readyOne = { ...ready(sha1, 'b-1', url1), composition_id: 'c-1' };
    expect(planFeedback(nothingWritten, readyOne, [], false, linked)?.deployment?.status).toMatchObject({
      environment_url: url1,
      log_url: `${origin}/console/compositions/c-1`,
    });
    const waitingOne = { ...waiting(sha1), composition_id: null };
    expect(planFeedback(nothingWritten, waitingOne, [], false, linked)?.deployment?.status.log_url).toBe(
      `${origin}/console/pr-previews?project=${waitingOne.project}#preview-${waitingOne.id}`,
    );
    expect(planFeedback(nothingWritten, readyOne, [], false, both)?.deployment?.status.log_url).toBeNull();
  });

  it('a stop makes the deployment inactive once, and a push while stopped creates none', () => {
    const readyDeployed = walk([ready(sha1, 'b-1')], nothingWritten, [], both).feedback;
    const walked = walk([stopping(sha1, 'b-1'), stopped(sha1), stopped(sha2)], readyDeployed, [], both);
    expect(walked.steps.map((step) => step.filter((call) => call.startsWith('deployment')))).toEqual([
      ['deployment inactive'],
      [],
      [],
    ]);
  });

  it('a policy back on comments still makes the last deployment inactive, and makes no new one', () => {
    const readyDeployed = walk([ready(sha1, 'b-1')], nothingWritten, [], both).feedback;
    expect(planFeedback(readyDeployed, deploying(sha2, 'b-2'), [], false)?.deployment).toBeNull();
    expect(planFeedback(readyDeployed, stopped(sha1), [], false)?.deployment?.status.state).toBe('inactive');
  });

  it('after a failure following the creation, the retry writes only the status on the deployment created', () => {
    const plan = planFeedback(nothingWritten, ready(sha1, 'b-1'), [], false, both) as FeedbackPlan;
    const sent: FeedbackSent = {
      checkRun: { id: 5 },
      comment: { id: 6 },
      deployment: { failed: new Error('rate limited'), created: 41 },
    };
    const stored = settleFeedback(plan.claim, nothingWritten, plan, sent);
    expect(stored).toMatchObject({ deployment_id: 41, deployment_sha: sha1, deployment_fingerprint: null });
    const retry = planFeedback(stored, ready(sha1, 'b-1'), [], false, both);
    expect(retry?.deployment).toMatchObject({ id: 41, create: null, supersedes: null });

    const nothingMade = settleFeedback(plan.claim, nothingWritten, plan, {
      ...sent,
      deployment: { failed: new Error('rate limited'), created: null },
    });
    expect(nothingMade).toMatchObject({
      deployment_id: null,
      deployment_sha: null,
      deployment_fingerprint: null,
    });
  });

  it('never creates a second deployment while one is being created, unless that claim is old', () => {
    const claimed = {
      ...nothingWritten,
      deployment_id: 0,
      deployment_sha: sha1,
      deployment_fingerprint: 'x',
    };
    expect(planFeedback(claimed, ready(sha1, 'b-1'), [], false, both)?.deployment).toBeNull();
    expect(planFeedback(claimed, ready(sha1, 'b-1'), [], true, both)?.deployment?.create).not.toBeNull();
  });
});
