/**
 * Moves one pull request's preview: reads everything as it is now, asks `converge` for the next
 * step, does it, records the preview, and writes feedback to the pull request when it changed.
 * Safe to run any number of times, concurrently too: the preview record is written conditionally
 * (a lost race reads again), the composition id is allocated and recorded before the composition
 * is created, and the composition commands themselves are conditional.
 */
import { createForForge, destroy, updateForForge } from '../compositions/commands.ts';
import { type CompositionRecord, isTornDown } from '../compositions/model.ts';
import { ProblemError } from '../errors.ts';
import { IdPrefix, newId } from '../names.ts';
import { type Action, converge, type Decision, Unwanted } from './converge.ts';
import { changeToConverge, convergeChangeOf } from './drive-change.ts';
import {
  accountOf,
  FeedbackMode,
  ownerSubject,
  type PreviewPolicy,
  type PreviewRecord,
  PreviewState,
  type PullRequest,
  previewId,
} from './model.ts';
import { policyInEffect } from './policies.ts';
import { ForgeContendedError, type ForgeDeps, forgeCaller } from './ports.ts';
import {
  buildsOf,
  type Converged,
  freshRecord,
  maxRaces,
  observedComposition,
  overridesOf,
  type PullRequestRef,
  requireForge,
  writeFeedback,
} from './preview-io.ts';

/** Converges the preview of one pull request in one project; answers what it decided. */
export async function convergePullRequest(deps: ForgeDeps, ref: PullRequestRef): Promise<Converged> {
  const forge = requireForge(deps);
  for (let attempt = 0; attempt < maxRaces; attempt++) {
    const id = previewId(ref.project, ref.repository, ref.number);
    const [policy, suspension, preview] = await Promise.all([
      policyInEffect(deps, ref.project, ref.repository),
      deps.forgeStore.getSuspension(accountOf(ref.repository)),
      deps.forgeStore.getPreview(id),
    ]);
    // A suspended installation's calls are refused: nothing of the pull request can be read.
    const suspended = suspension !== null;
    const pr = suspended ? null : await forge.getPullRequest(ref.repository, ref.number);
    const change = await changeToConverge(deps, policy, pr, suspended, preview);
    if (change) return convergeChangeOf(deps, ref, change);
    const [builds, composition] = await Promise.all([
      buildsOf(deps, policy, pr?.head_sha),
      preview?.composition_id ? deps.compositions.get(preview.composition_id) : null,
    ]);
    const now = deps.clock.now();
    const decision = converge({
      policy,
      pr,
      suspended,
      preview,
      builds,
      composition: observedComposition(composition, now),
    });
    if (decision.state === null) return { decision, preview: null };
    const base = preview ?? freshRecord(ref, pr as PullRequest, now.toISOString());
    const outcome = await act(deps, { policy, pr, base, composition, headBuilds: builds, decision, now });
    if (outcome === 'raced') continue;
    if (outcome.poll) {
      await deps.jobs
        .send({ kind: 'forge-preview', ...ref }, { delaySeconds: deps.forgeSettings.pollSeconds })
        .catch((error: unknown) =>
          deps.log({ level: 'warn', msg: 'forge poll not enqueued', error: String(error) }),
        );
    }
    // The forge refuses a suspended installation's writes; the feedback follows once it is back.
    if (suspended) return { decision, preview: outcome.record };
    const mode = policy?.feedback ?? FeedbackMode.Comment;
    const written = await writeFeedback(deps, forge, outcome.record, composition, mode);
    return { decision, preview: written };
  }
  throw new ForgeContendedError(`preview of ${ref.repository}#${ref.number}`);
}

interface Step {
  policy: PreviewPolicy | null;
  pr: PullRequest | null;
  base: PreviewRecord;
  composition: CompositionRecord | null;
  /** The builds published for the head commit. */
  headBuilds: Record<string, string>;
  decision: Decision;
  now: Date;
}

/** Does the decided action and records the preview; 'raced' when another writer got there first. */
async function act(deps: ForgeDeps, step: Step): Promise<'raced' | { record: PreviewRecord; poll: boolean }> {
  const record = observedRecord(step);
  const action: Action = step.decision.action;
  if (action.kind === 'create') return create(deps, step, record, action.builds);
  if (action.kind === 'update') return update(deps, step, record, action.builds);
  if (action.kind === 'destroy') {
    const composition = step.composition as CompositionRecord;
    await destroy(deps, forgeCaller(ownerSubject(step.base.repository, step.base.number)), composition.id);
    return save(deps, step.base, record, true);
  }
  return save(deps, step.base, record, action.kind === 'poll');
}

/** The preview as the decision and the composition say it is now, before the action. */
function observedRecord(step: Step): PreviewRecord {
  const { base, decision, now } = step;
  let record: PreviewRecord = {
    ...base,
    state: decision.state as PreviewState,
    head_sha: step.pr?.head_sha ?? base.head_sha,
    head_ref: step.pr?.head_ref ?? base.head_ref,
    fork: step.pr?.fork ?? base.fork,
    updated_at: now.toISOString(),
  };
  if (step.composition && !isTornDown(step.composition.phase)) {
    // What the composition runs, read again each time, so a lost write of the record heals.
    const running = observedComposition(step.composition, now)?.builds ?? {};
    record.url = step.composition.public_url;
    record.expires_at = step.composition.expires_at;
    record.builds = running;
    if (sameBuilds(running, step.headBuilds)) record.deployed_sha = record.head_sha;
  }
  if (decision.state === PreviewState.Stopped) {
    record = {
      ...record,
      builds: {},
      deployed_sha: null,
      url: null,
      expires_at: null,
      restart_pending: false,
    };
  }
  if (decision.unwanted === Unwanted.InstallationSuspended) {
    record.last_error = {
      code: Unwanted.InstallationSuspended,
      message: `the app's installation on ${accountOf(base.repository)} is suspended`,
    };
  } else if (record.last_error?.code === Unwanted.InstallationSuspended) {
    record.last_error = null;
  }
  if (decision.state === PreviewState.Failed && step.composition) {
    record.last_error = { code: 'composition_failed', message: `composition ${step.composition.id} failed` };
  } else if (decision.state === PreviewState.Ready) {
    record.last_error = null;
  }
  return record;
}

/** Moves the composition to the head commit's builds, as the forge and at the generation it saw. */
async function update(deps: ForgeDeps, step: Step, record: PreviewRecord, builds: Record<string, string>) {
  const { base } = step;
  const composition = step.composition as CompositionRecord;
  try {
    await updateForForge(
      deps,
      forgeCaller(ownerSubject(base.repository, base.number)),
      composition.id,
      {
        expected_generation: composition.generation,
        overrides: overridesOf(builds),
        expected_preview_revisions: {},
      },
      ownerSubject(base.repository, base.number),
    );
  } catch (error) {
    // Someone else moved the composition meanwhile: look again shortly.
    if (error instanceof ProblemError && error.status === 409) return save(deps, base, record, true);
    if (error instanceof ProblemError && error.status === 422) {
      return save(
        deps,
        base,
        { ...record, state: PreviewState.Failed, last_error: { code: error.code, message: error.message } },
        false,
      );
    }
    throw error;
  }
  const headSha = step.pr?.head_sha ?? base.head_sha;
  return save(deps, base, { ...record, builds, deployed_sha: headSha, last_error: null }, true);
}

const sameBuilds = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, id]) => b[k] === id);

/**
 * Records the composition id first, then creates it: a crash in between leaves an id whose
 * composition does not exist, and the next convergence creates it under that same id.
 */
async function create(
  deps: ForgeDeps,
  step: Step,
  record: PreviewRecord,
  builds: Record<string, string>,
): Promise<'raced' | { record: PreviewRecord; poll: boolean }> {
  const { base } = step;
  const policy = step.policy as PreviewPolicy;
  const reuse = base.composition_id !== null && step.composition === null;
  const compositionId = reuse ? (base.composition_id as string) : newId(IdPrefix.Composition);
  const headSha = step.pr?.head_sha ?? base.head_sha;
  const planned: PreviewRecord = {
    ...record,
    composition_id: compositionId,
    builds,
    deployed_sha: headSha,
    restart_pending: false,
    last_error: null,
    url: null,
    expires_at: null,
    lock_version: base.lock_version + 1,
  };
  if (!(await deps.forgeStore.putPreview(planned, base.lock_version))) return 'raced';
  const subject = ownerSubject(base.repository, base.number);
  try {
    const view = await createForForge(
      deps,
      forgeCaller(subject),
      {
        project: policy.project,
        baseline: policy.baseline,
        name: `pr-${base.number}`,
        overrides: overridesOf(builds),
        ttl: policy.ttl,
        message_isolation: false,
        expected_preview_revisions: {},
      },
      { id: compositionId, subject },
    );
    return save(
      deps,
      planned,
      { ...planned, url: view.endpoints.public.url, expires_at: view.expires_at },
      true,
    );
  } catch (error) {
    if (!(error instanceof ProblemError) || error.status >= 500) throw error;
    const failed = {
      ...planned,
      state: PreviewState.Failed,
      composition_id: null,
      last_error: { code: error.code, message: error.message },
    };
    return save(deps, planned, failed, false);
  }
}

/** A poll due further off than this is pending: a look now starts no second chain of polls. */
const pollPendingMs = 1000;

/**
 * Records the preview over the version read. `poll` asks for a later look: it is sent only when no
 * other one is pending (`poll_at`), so concurrent triggers during a rollout do not multiply polls.
 */
async function save(
  deps: ForgeDeps,
  read: PreviewRecord,
  proposed: PreviewRecord,
  wantsPoll: boolean,
): Promise<'raced' | { record: PreviewRecord; poll: boolean }> {
  const now = deps.clock.now().getTime();
  const pending = read.poll_at !== null && Date.parse(read.poll_at) - now > pollPendingMs;
  const poll = wantsPoll && !pending;
  const next = poll
    ? { ...proposed, poll_at: new Date(now + deps.forgeSettings.pollSeconds * 1000).toISOString() }
    : proposed;
  if (JSON.stringify({ ...next, updated_at: read.updated_at }) === JSON.stringify(read))
    return { record: read, poll };
  const record = { ...next, lock_version: read.lock_version + 1 };
  return (await deps.forgeStore.putPreview(record, read.lock_version)) ? { record, poll } : 'raced';
}
