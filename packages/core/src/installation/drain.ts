/**
 * The drain (`POST /v1/admin/drain`, `svc admin drain`): before a cluster leaves the stage's
 * settings, or the stage is removed, every live composition there is destroyed the way a DELETE
 * destroys it (a destroy operation superseding the one in flight, its events, the worker's steps,
 * a pull-request preview stopped), or it would be left running with nothing to end it. One call
 * handles one page of the live compositions, so any number is drained in bounded requests; a
 * composition whose destroy is already under way is left alone, so a drain can be run again, from
 * the start or from a page's cursor, and picks up only what is left (or was created meanwhile).
 */
import * as v from 'valibot';
import { authorize } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import type { Identity } from '../auth/identity.ts';
import { AuditAction } from '../auth/model.ts';
import { Baseline } from '../catalog/schema.ts';
import { destroy, destroyUnderWay } from '../compositions/commands.ts';
import { type CompositionRecord, effectivePhase, Phase } from '../compositions/model.ts';
import { ErrorCode, outwardCause, ProblemError } from '../errors.ts';
import type { ForgeDeps } from '../forge/ports.ts';
import { stopForComposition } from '../forge/previews.ts';
import { clusterList } from '../names.ts';
import type { Page, PageRequest } from '../paging.ts';

export const DrainRequest = v.strictObject({
  /** One of the stage's clusters, as baselines name it; null or absent: every composition of the stage. */
  cluster: v.optional(v.nullable(Baseline.entries.cluster), null),
  /** List what would be destroyed; change nothing. */
  dry_run: v.optional(v.boolean(), false),
});
export type DrainRequest = v.InferOutput<typeof DrainRequest>;

const DrainAction = {
  /** Its destroy starts now (in a dry run: would start). */
  Destroy: 'destroy',
  /** Its destroy is already under way: nothing to start. */
  Destroying: 'destroying',
  /** Its destroy could not be started (`detail` says why): drain again. */
  NotStarted: 'not_started',
} as const;
type DrainAction = (typeof DrainAction)[keyof typeof DrainAction];

const DrainedComposition = v.object({
  id: v.string(),
  project: v.string(),
  name: v.string(),
  /** Null for one made before clusters were named (the stage's only cluster). */
  cluster: v.nullable(v.string()),
  /** Its phase when the page was read. */
  phase: v.enum(Phase),
  action: v.enum(DrainAction),
  detail: v.nullable(v.string()),
});
type DrainedComposition = v.InferOutput<typeof DrainedComposition>;

export const DrainReport = v.object({
  dry_run: v.boolean(),
  cluster: v.nullable(v.string()),
  /** One page of the live compositions drained, newest first; `next_cursor` asks for the next. */
  items: v.array(DrainedComposition),
  next_cursor: v.nullable(v.string()),
});
export type DrainReport = v.InferOutput<typeof DrainReport>;

/** Destroys started at once within a page: a page of 100 stays well inside the API's deadline. */
const concurrentDestroys = 10;

export async function drain(
  deps: ForgeDeps,
  caller: Identity,
  request: DrainRequest,
  page: PageRequest,
): Promise<DrainReport> {
  authorize(caller, 'installation:drain', { project: null });
  const found = await liveCompositions(deps, request.cluster, page);
  const now = deps.clock.now();
  const items: DrainedComposition[] = [];
  for (let start = 0; start < found.items.length; start += concurrentDestroys) {
    const batch = found.items.slice(start, start + concurrentDestroys);
    items.push(
      ...(await Promise.all(
        batch.map((record) =>
          request.dry_run ? entryOf(record, now, plannedAction(record)) : drainOne(deps, caller, record),
        ),
      )),
    );
  }
  const started = items.filter((item) => item.action === DrainAction.Destroy).map((item) => item.id);
  if (!request.dry_run && started.length > 0) {
    await recordAudit(deps, caller, {
      action: AuditAction.InstallationDrained,
      project: null,
      target: request.cluster === null ? 'stage' : `cluster:${request.cluster}`,
      data: { compositions: started },
    });
  }
  return { dry_run: request.dry_run, cluster: request.cluster, items, next_cursor: found.next_cursor };
}

/** A page of the stage's live compositions, or of one of its clusters' (a name it does not know is a 422). */
function liveCompositions(
  deps: Pick<ForgeDeps, 'compositions' | 'clusters'>,
  cluster: string | null,
  page: PageRequest,
): Promise<Page<CompositionRecord>> {
  if (cluster === null) return deps.compositions.list({ project: null, projects: null }, page);
  const { names } = deps.clusters;
  if (!names.includes(cluster)) {
    throw new ProblemError(
      ErrorCode.UnknownReference,
      `cluster "${cluster}" is not one of this installation's clusters (${clusterList(names)})`,
      { errors: [{ path: '/cluster', message: 'unknown cluster' }] },
    );
  }
  return deps.compositions.listOnCluster({ name: cluster, unnamedToo: names.length === 1 }, page);
}

const plannedAction = (record: CompositionRecord): DrainAction =>
  destroyUnderWay(record) ? DrainAction.Destroying : DrainAction.Destroy;

/**
 * DELETE's path from the record read: a pull-request preview's stop, then the destroy (reason
 * `drained`). The stop comes first, so a preview its automation would bring back on the same
 * cluster stays stopped (until restarted), and a destroy that fails after it is still done by
 * that automation's stop; a drain run again stops and destroys what is left.
 */
async function drainOne(
  deps: ForgeDeps,
  caller: Identity,
  record: CompositionRecord,
): Promise<DrainedComposition> {
  const now = deps.clock.now();
  if (destroyUnderWay(record)) return entryOf(record, now, DrainAction.Destroying);
  try {
    await stopForComposition(deps, record);
    const actor = { kind: 'user' as const, subject: caller.subject };
    await destroy(deps, { actor, grants: caller.grants }, record.id, 'drained', record);
    return entryOf(record, now, DrainAction.Destroy);
  } catch (error) {
    deps.log({ level: 'warn', msg: 'drain destroy failed', composition_id: record.id, error: String(error) });
    return entryOf(record, now, DrainAction.NotStarted, outwardCause(error));
  }
}

function entryOf(
  record: CompositionRecord,
  now: Date,
  action: DrainAction,
  detail: string | null = null,
): DrainedComposition {
  return {
    id: record.id,
    project: record.project,
    name: record.name,
    cluster: record.cluster ?? null,
    phase: effectivePhase(record, now),
    action,
    detail,
  };
}
