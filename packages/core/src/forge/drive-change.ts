/**
 * Moves a change's one composition: reads each of its pull requests as the forge says it is now
 * (the ones last recorded and the one an event named), asks `convergeChange` for the next step,
 * does it, records the change over the version read, then records and tells each pull request.
 * The composition id is recorded on the change before the composition is created, so a crash and
 * a retry never make two; an update names the generation it saw.
 */
import { createForForge, destroy, updateForForge } from '../compositions/commands.ts';
import { type CompositionRecord, isTornDown } from '../compositions/model.ts';
import { ProblemError } from '../errors.ts';
import { IdPrefix, newId } from '../names.ts';
import { type CandidateObservation, type ChangeDecision, convergeChange } from './change-converge.ts';
import {
  type ChangeKey,
  type ChangeMember,
  type ChangeRecord,
  changeId,
  groupOf,
  memberName,
} from './change-model.ts';
import { unwantedBecause } from './converge.ts';
import {
  accountOf,
  FeedbackMode,
  type PreviewPolicy,
  type PreviewRecord,
  PreviewState,
  type PullRequest,
  previewId,
} from './model.ts';
import { policiesInEffect, policyInEffect } from './policies.ts';
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

interface Candidate {
  observation: CandidateObservation;
  /** The project of the policy in effect; null when none acts. */
  project: string | null;
}

/** One pull request as it is now; `project` is the event's, else its repository's holder's. */
async function observe(deps: ForgeDeps, member: ChangeMember, project: string | null): Promise<Candidate> {
  const [policy, suspension] = await Promise.all([
    project
      ? policyInEffect(deps, project, member.repository)
      : policiesInEffect(deps, member.repository).then((policies) => policies[0] ?? null),
    deps.forgeStore.getSuspension(accountOf(member.repository)),
  ]);
  const suspended = suspension !== null;
  const pr = suspended ? null : await requireForge(deps).getPullRequest(member.repository, member.number);
  const builds = await buildsOf(deps, policy, pr?.head_sha);
  return {
    observation: { repository: member.repository, number: member.number, policy, pr, suspended, builds },
    project: policy?.project ?? null,
  };
}

const same = (
  a: Pick<ChangeMember, 'repository' | 'number'>,
  b: Pick<ChangeMember, 'repository' | 'number'>,
) => memberName(a).toLowerCase() === memberName(b).toLowerCase();

function freshChange(id: string, ref: PullRequestRef, key: ChangeKey, now: string): ChangeRecord {
  return {
    id,
    account: accountOf(ref.repository).toLowerCase(),
    key,
    project: null,
    members: [],
    state: PreviewState.WaitingForBuild,
    composition_id: null,
    composed: {},
    url: null,
    expires_at: null,
    refusal: null,
    suppressed: false,
    restart_pending: false,
    poll_at: null,
    created_at: now,
    updated_at: now,
    lock_version: 0,
  };
}

/**
 * The change whose convergence moves the pull request's preview: the one it belongs to, or, when it
 * left the change its preview shares (closed, unlabelled, or grouped elsewhere), that one, which
 * releases it to a convergence of its own.
 */
export async function changeToConverge(
  deps: ForgeDeps,
  policy: PreviewPolicy | null,
  pr: PullRequest | null,
  suspended: boolean,
  preview: PreviewRecord | null,
): Promise<ChangeKey | null> {
  const key = unwantedBecause(policy, pr, false, suspended) === null ? groupOf(policy, pr) : null;
  if (!preview?.change_id) return key;
  if (key !== null && changeId(preview.repository, key) === preview.change_id) return key;
  const left = await deps.forgeStore.getChange(preview.change_id);
  return left?.key ?? key;
}

/** Converges the change `key` that the pull request `ref` names; answers what it decided for `ref`. */
export async function convergeChangeOf(
  deps: ForgeDeps,
  ref: PullRequestRef,
  key: ChangeKey,
): Promise<Converged> {
  const id = changeId(ref.repository, key);
  for (let attempt = 0; attempt < maxRaces; attempt++) {
    const recorded = await deps.forgeStore.getChange(id);
    const named = recorded?.members ?? [];
    const others = named.filter((member) => !same(member, ref));
    const candidates = await Promise.all([
      observe(deps, { ...ref, components: [] }, ref.project),
      ...others.map((member) => observe(deps, member, null)),
    ]);
    const composition = recorded?.composition_id
      ? await deps.compositions.get(recorded.composition_id)
      : null;
    const now = deps.clock.now();
    const decision = convergeChange({
      key,
      candidates: candidates.map((candidate) => candidate.observation),
      recorded,
      composition: observedComposition(composition, now),
    });
    if (decision.state === null && !recorded) return { decision, preview: null };
    const base = recorded ?? freshChange(id, ref, key, now.toISOString());
    const moved = await act(deps, base, composition, decision);
    if (moved === 'raced') continue;
    await tellMembers(deps, moved, composition, decision, candidates);
    await releaseLeavers(deps, moved, named, decision);
    const preview = await deps.forgeStore.getPreview(previewId(ref.project, ref.repository, ref.number));
    return { decision, preview };
  }
  throw new ForgeContendedError(`change ${id}`);
}

/** Does the decided action on the change's composition and records the change. */
async function act(
  deps: ForgeDeps,
  base: ChangeRecord,
  composition: CompositionRecord | null,
  decision: ChangeDecision,
): Promise<'raced' | ChangeRecord> {
  const now = deps.clock.now();
  const live = composition && !isTornDown(composition.phase) ? composition : null;
  const record: ChangeRecord = {
    ...base,
    state: decision.state ?? PreviewState.Stopped,
    project: decision.basis?.project ?? base.project,
    members: decision.members.map(({ repository, number, components }) => ({
      repository,
      number,
      components,
    })),
    refusal: decision.refusal,
    url: live?.public_url ?? null,
    expires_at: live?.expires_at ?? null,
    // The last pull request leaving ends a user stop: a new change on the key starts afresh.
    suppressed: decision.members.length > 0 && base.suppressed,
    updated_at: now.toISOString(),
  };
  // One chain of polls per change: a look while one is pending further off starts no other.
  const pending = base.poll_at !== null && Date.parse(base.poll_at) - now.getTime() > 1000;
  const poll = decision.action.kind !== 'none' && !pending;
  if (poll) record.poll_at = new Date(now.getTime() + deps.forgeSettings.pollSeconds * 1000).toISOString();
  const action = decision.action;
  const subject = `change:${base.id}`;
  if (action.kind === 'create' && decision.basis) {
    const reuse = base.composition_id !== null && composition === null;
    const planned: ChangeRecord = {
      ...record,
      composition_id: reuse ? base.composition_id : newId(IdPrefix.Composition),
      composed: action.builds,
      restart_pending: false,
      lock_version: base.lock_version + 1,
    };
    if (!(await deps.forgeStore.putChange(planned, base.lock_version))) return 'raced';
    const view = await createComposition(deps, planned, decision.basis);
    if (poll) await schedulePoll(deps, planned);
    return save(deps, planned, { ...planned, url: view.endpoints.public.url, expires_at: view.expires_at });
  }
  if (action.kind === 'update' && composition) {
    try {
      await updateForForge(
        deps,
        forgeCaller(subject),
        composition.id,
        {
          expected_generation: composition.generation,
          overrides: overridesOf(action.builds),
          expected_preview_revisions: {},
        },
        subject,
      );
      record.composed = action.builds;
    } catch (error) {
      // Someone else moved the composition meanwhile: the poll looks again.
      if (!(error instanceof ProblemError) || error.status !== 409) throw error;
    }
  }
  if (action.kind === 'destroy' && composition) await destroy(deps, forgeCaller(subject), composition.id);
  if (poll) await schedulePoll(deps, record);
  return save(deps, base, record);
}

/** Creates the composition under the id the change recorded, as the forge, owned by the change. */
function createComposition(
  deps: ForgeDeps,
  change: ChangeRecord,
  basis: NonNullable<ChangeDecision['basis']>,
) {
  const subject = `change:${change.id}`;
  return createForForge(
    deps,
    forgeCaller(subject),
    {
      project: basis.project,
      baseline: basis.baseline,
      name: change.id,
      overrides: overridesOf(change.composed),
      ttl: basis.ttl,
      message_isolation: false,
      expected_preview_revisions: {},
    },
    { id: change.composition_id as string, subject },
  );
}

async function save(
  deps: ForgeDeps,
  read: ChangeRecord,
  proposed: ChangeRecord,
): Promise<'raced' | ChangeRecord> {
  const record = { ...proposed, lock_version: read.lock_version + 1 };
  return (await deps.forgeStore.putChange(record, read.lock_version)) ? record : 'raced';
}

/** A later look at the change through its first pull request, while its composition moves. */
async function schedulePoll(deps: ForgeDeps, change: ChangeRecord): Promise<void> {
  const [first] = change.members;
  if (!first || !change.project) return;
  await deps.jobs
    .send(
      { kind: 'forge-preview', project: change.project, repository: first.repository, number: first.number },
      { delaySeconds: deps.forgeSettings.pollSeconds },
    )
    .catch((error: unknown) =>
      deps.log({ level: 'warn', msg: 'forge poll not enqueued', error: String(error) }),
    );
}

/** What a member is told when it waits: the components of its head commit not built yet. */
const waitingError = (components: readonly string[]) => ({
  code: 'waiting_for_build',
  message: `waiting for the build of ${components.join(', ')} for this commit`,
});

/**
 * Records each member's preview as the change stands, and writes its feedback. A member that had
 * a preview of its own before it joined has that composition destroyed: the change's replaces it.
 */
async function tellMembers(
  deps: ForgeDeps,
  change: ChangeRecord,
  composition: CompositionRecord | null,
  decision: ChangeDecision,
  candidates: readonly Candidate[],
): Promise<void> {
  const forge = requireForge(deps);
  await Promise.all(
    decision.members.map(async (member) => {
      const candidate = candidates.find((c) => same(c.observation, member));
      const pr = candidate?.observation.pr;
      if (!candidate?.project || !pr) return;
      const ref = { project: candidate.project, repository: member.repository, number: member.number };
      for (let attempt = 0; attempt < maxRaces; attempt++) {
        const current = await deps.forgeStore.getPreview(previewId(ref.project, ref.repository, ref.number));
        if (current?.composition_id && current.change_id === null) {
          await destroy(deps, forgeCaller(memberName(ref)), current.composition_id).catch(() => {});
        }
        const base = current ?? freshRecord(ref, pr, change.updated_at);
        const error = decision.refusal ?? (member.waiting.length > 0 ? waitingError(member.waiting) : null);
        const next: PreviewRecord = {
          ...base,
          state: member.state,
          head_sha: pr.head_sha,
          head_ref: pr.head_ref,
          fork: pr.fork,
          change_id: change.id,
          // A stop or restart of the change, from any of its pull requests or a DELETE, shows on each.
          suppressed: change.suppressed,
          composition_id: change.composition_id,
          builds: change.composed,
          deployed_sha: member.waiting.length === 0 ? pr.head_sha : base.deployed_sha,
          url: change.url,
          expires_at: change.expires_at,
          last_error: error,
          updated_at: change.updated_at,
          lock_version: base.lock_version + 1,
        };
        if (!(await deps.forgeStore.putPreview(next, base.lock_version))) continue;
        await writeFeedback(
          deps,
          forge,
          next,
          composition,
          candidate.observation.policy?.feedback ?? FeedbackMode.Comment,
          change.members,
        );
        return;
      }
    }),
  );
}

/**
 * Members last recorded that are no longer in the change go back to previews of their own: their
 * record forgets the change's composition, and a convergence of each decides what it has now.
 */
async function releaseLeavers(
  deps: ForgeDeps,
  change: ChangeRecord,
  named: readonly ChangeMember[],
  decision: ChangeDecision,
): Promise<void> {
  const leavers = named.filter((member) => !decision.members.some((m) => same(m, member)));
  if (!change.project) return;
  const project = change.project;
  await Promise.all(
    leavers.map(async (leaver) => {
      const preview = await deps.forgeStore.getPreview(previewId(project, leaver.repository, leaver.number));
      if (preview?.change_id !== change.id) return;
      const released: PreviewRecord = {
        ...preview,
        change_id: null,
        composition_id: null,
        builds: {},
        deployed_sha: null,
        url: null,
        expires_at: null,
        last_error: null,
        state: PreviewState.Stopped,
        updated_at: change.updated_at,
        lock_version: preview.lock_version + 1,
      };
      if (!(await deps.forgeStore.putPreview(released, preview.lock_version))) return;
      await deps.jobs.send({
        kind: 'forge-preview',
        project,
        repository: leaver.repository,
        number: leaver.number,
      });
    }),
  );
}

/**
 * A stop, a restart or a generic DELETE of a change's composition acts on the whole change: its
 * record says it, and the next convergence (of any of its pull requests) does it.
 */
export async function controlChange(
  deps: Pick<ForgeDeps, 'forgeStore' | 'clock'>,
  id: string,
  control: 'stop' | 'restart',
): Promise<ChangeRecord | null> {
  for (let attempt = 0; attempt < maxRaces; attempt++) {
    const current = await deps.forgeStore.getChange(id);
    if (!current) return null;
    const next: ChangeRecord = {
      ...current,
      suppressed: control === 'stop',
      restart_pending: control === 'restart' && current.composition_id !== null,
      updated_at: deps.clock.now().toISOString(),
      lock_version: current.lock_version + 1,
    };
    if (await deps.forgeStore.putChange(next, current.lock_version)) return next;
  }
  throw new Error(`change ${id} kept changing`);
}

/** The change whose composition this is, from its owner subject (`change:<id>`). */
export const changeOwning = (subject: string) => (subject.startsWith('change:') ? subject.slice(7) : null);
