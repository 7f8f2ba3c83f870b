/**
 * The preview routes (list, get, stop, restart), the stop a generic DELETE records, and the
 * trigger a build publication pulls. Stop and restart only record the intent and enqueue a
 * convergence: the transition itself is asynchronous.
 */
import { anyProject, authorize, readableProjects } from '../auth/access.ts';
import type { Identity } from '../auth/identity.ts';
import type { Build } from '../builds/schema.ts';
import type { CompositionRecord } from '../compositions/model.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { OwnerKind } from '../operations/model.ts';
import type { Page, PageRequest } from '../paging.ts';
import { unwantedBecause } from './converge.ts';
import { changeOwning, controlChange } from './drive-change.ts';
import { accountOf, type PreviewRecord, PreviewState, previewId } from './model.ts';
import { policyInEffect } from './policies.ts';
import type { ForgeDeps } from './ports.ts';
import { requireForge } from './preview-io.ts';
import { type PreviewView, previewView } from './schema.ts';

type Caller = Pick<Identity, 'grants'>;

async function requirePreview(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  caller: Caller,
  id: string,
  permission: 'preview:read' | 'preview:control',
): Promise<PreviewRecord> {
  const object = `preview "${id}"`;
  const record = await deps.forgeStore.getPreview(id);
  if (!record) throw new ProblemError(ErrorCode.NotFound, `${object} not found`);
  authorize(caller, permission, { project: record.project, object });
  return record;
}

export async function listPreviews(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  caller: Caller,
  filter: { project: string | null },
  page: PageRequest,
): Promise<Page<PreviewView>> {
  if (filter.project !== null) authorize(caller, 'preview:read', { project: filter.project });
  const readable = readableProjects(caller.grants, 'preview:read');
  const result = await deps.forgeStore.listPreviews(filter, page);
  return {
    items: await viewsOf(
      deps,
      result.items.filter((p) => readable === anyProject || readable.has(p.project)),
    ),
    next_cursor: result.next_cursor,
  };
}

export async function getPreview(deps: Pick<ForgeDeps, 'forgeStore'>, caller: Caller, id: string) {
  return (await viewsOf(deps, [await requirePreview(deps, caller, id, 'preview:read')]))[0] as PreviewView;
}

/** The previews as answered, each with its change's pull requests (one read per change on the page). */
async function viewsOf(deps: Pick<ForgeDeps, 'forgeStore'>, records: readonly PreviewRecord[]) {
  const ids = [...new Set(records.flatMap((record) => (record.change_id ? [record.change_id] : [])))];
  const changes = await Promise.all(ids.map((id) => deps.forgeStore.getChange(id)));
  const byId = new Map(changes.flatMap((change) => (change ? [[change.id, change] as const] : [])));
  return records.map((record) => previewView(record, byId.get(record.change_id ?? '') ?? null));
}

const refOf = (record: Pick<PreviewRecord, 'project' | 'repository' | 'number'>) => ({
  project: record.project,
  repository: record.repository,
  number: record.number,
});

/** Writes `change` over the current record, reading again when another writer got there first. */
async function amend(
  deps: Pick<ForgeDeps, 'forgeStore' | 'clock'>,
  record: PreviewRecord,
  change: (current: PreviewRecord) => Partial<PreviewRecord>,
): Promise<PreviewRecord> {
  let current = record;
  for (let attempt = 0; attempt < 5; attempt++) {
    const next = {
      ...current,
      ...change(current),
      updated_at: deps.clock.now().toISOString(),
      lock_version: current.lock_version + 1,
    };
    if (await deps.forgeStore.putPreview(next, current.lock_version)) return next;
    const latest = await deps.forgeStore.getPreview(current.id);
    if (!latest) return current;
    current = latest;
  }
  throw new ProblemError(ErrorCode.OperationInProgress, 'The preview kept changing; retry.');
}

async function enqueue(
  deps: Pick<ForgeDeps, 'jobs' | 'log'>,
  record: Pick<PreviewRecord, 'project' | 'repository' | 'number'>,
): Promise<void> {
  // A lost send is repaired by the reconciliation sweep, which converges every active preview.
  await deps.jobs
    .send({ kind: 'forge-preview', ...refOf(record) })
    .catch((error: unknown) =>
      deps.log({ level: 'warn', msg: 'forge job not enqueued', error: String(error) }),
    );
}

/** POST …/stop: automation leaves the pull request alone until a restart; cleanup follows. */
export async function stop(deps: ForgeDeps, caller: Caller, id: string): Promise<PreviewView> {
  const record = await requirePreview(deps, caller, id, 'preview:control');
  if (record.change_id) await controlChange(deps, record.change_id, 'stop');
  const stopped = await amend(deps, record, (current) => ({
    suppressed: true,
    restart_pending: false,
    state:
      current.composition_id && current.state !== PreviewState.Stopped
        ? PreviewState.Stopping
        : PreviewState.Stopped,
  }));
  await enqueue(deps, stopped);
  return (await viewsOf(deps, [stopped]))[0] as PreviewView;
}

/** Where a restart's refusal points: the policy, the app's installation, or the pull request. */
function refusalPath(reason: string): string {
  if (reason === 'policy_missing' || reason === 'policy_disabled') return '/policy';
  return reason === 'installation_suspended' ? '/installation' : '/pull_request';
}

/**
 * POST …/restart: a fresh composition (new URL, new TTL) once the old one is cleaned up. Needs an
 * open pull request carrying the label and an enabled policy; a 409 names what is missing.
 */
export async function restart(deps: ForgeDeps, caller: Caller, id: string): Promise<PreviewView> {
  const record = await requirePreview(deps, caller, id, 'preview:control');
  const forge = requireForge(deps);
  const [policy, suspension] = await Promise.all([
    policyInEffect(deps, record.project, record.repository),
    deps.forgeStore.getSuspension(accountOf(record.repository)),
  ]);
  const pr = suspension ? null : await forge.getPullRequest(record.repository, record.number);
  const reason = unwantedBecause(policy, pr, false, suspension !== null);
  if (reason) {
    throw new ProblemError(
      ErrorCode.PreviewNotRestartable,
      `The preview cannot restart: ${reason.replaceAll('_', ' ')}.`,
      {
        errors: [
          {
            path: refusalPath(reason),
            message: reason,
            code: reason,
          },
        ],
      },
    );
  }
  if (record.change_id) await controlChange(deps, record.change_id, 'restart');
  const restarted = await amend(deps, record, (current) => ({
    suppressed: false,
    restart_pending: current.composition_id !== null,
    state: current.composition_id !== null ? PreviewState.Restarting : PreviewState.Deploying,
    last_error: null,
  }));
  await enqueue(deps, restarted);
  return (await viewsOf(deps, [restarted]))[0] as PreviewView;
}

/** A generic DELETE of a forge-owned composition: recorded as a stop of its preview. */
export async function stopForComposition(
  deps: ForgeDeps,
  composition: Pick<CompositionRecord, 'id' | 'project' | 'owner'>,
): Promise<void> {
  if (composition.owner.kind !== OwnerKind.Forge) return;
  const change = changeOwning(composition.owner.subject);
  if (change) {
    const stopped = await controlChange(deps, change, 'stop');
    const [member] = stopped?.members ?? [];
    if (stopped?.project && member) {
      await enqueue(deps, { project: stopped.project, repository: member.repository, number: member.number });
    }
    return;
  }
  const match = /^(.+)#(\d+)$/.exec(composition.owner.subject);
  if (!match) return;
  const record = await deps.forgeStore.getPreview(
    previewId(composition.project, match[1] as string, Number(match[2])),
  );
  if (!record || record.composition_id !== composition.id) return;
  const stopped = await amend(deps, record, () => ({
    suppressed: true,
    restart_pending: false,
    state: PreviewState.Stopping,
  }));
  await enqueue(deps, stopped);
}

/** A build was published: previews waiting for that commit converge now (an index query, not a scan). */
export async function buildPublished(
  deps: Pick<ForgeDeps, 'forgeStore' | 'jobs' | 'log'>,
  build: Build,
): Promise<void> {
  const waiting = await deps.forgeStore.waitingFor(build.repository, build.commit_sha);
  await Promise.all(waiting.filter((p) => p.project === build.project).map((p) => enqueue(deps, p)));
}
