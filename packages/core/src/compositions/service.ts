/**
 * The composition use cases behind the HTTP routes: accept, validate, store, enqueue, answer.
 * The rollout itself is the worker's.
 */

import type { Identity } from '../auth/identity.ts';
import type { Build, BuildStore } from '../builds/model.ts';
import { contentHash } from '../canonical.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import { addSeconds, type Clock } from '../clock.ts';
import { ErrorCode, type FieldError, ProblemError } from '../errors.ts';
import {
  type IdempotencyLock,
  type IdempotencyStore,
  isValidIdempotencyKey,
  maxIdempotencyKeyLength,
} from '../idempotency/ports.ts';
import { IdPrefix, newId, newSortableId } from '../names.ts';
import type { Page, PageRequest } from '../paging.ts';
import { parseOrThrow } from '../validation.ts';
import {
  type CompositionEvent,
  type CompositionRecord,
  EventType,
  isExpired,
  type Operation,
  OperationKind,
  OperationStatus,
  type Owner,
  OwnerKind,
  operationSteps,
  Phase,
} from './model.ts';
import {
  BlockerCode,
  type Plan,
  type PlannedBlocker,
  type PlanRequest,
  plan,
  referenceBlockers,
} from './plan.ts';
import type { CompositionStore, JobQueue } from './ports.ts';
import {
  type CompositionEndpointsView,
  type CompositionStatusView,
  type CompositionView,
  CreateCompositionBody,
  type PlanView,
  UpdateCompositionBody,
} from './schema.ts';
import { compositionView, endpointsView, statusView } from './view.ts';

export interface CompositionDeps {
  compositions: CompositionStore;
  catalog: CatalogStore;
  builds: BuildStore;
  idempotency: IdempotencyStore;
  jobs: JobQueue;
  clock: Clock;
  /** The preview URL of composition `id` on a baseline's preview domain. */
  previewUrl: (id: string, previewDomain: string) => string;
  log?: (entry: Record<string, unknown>) => void;
}

/** An operation whose next step was not picked up this long after it was due is re-enqueued. */
export const redispatchAfterSeconds = 30;
const maxConflictRetries = 5;

export interface Accepted {
  status: number;
  body: CompositionView;
  /** True when an Idempotency-Key replayed an earlier answer. */
  replayed: boolean;
}

export async function createComposition(
  deps: CompositionDeps,
  identity: Identity,
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<Accepted> {
  if (idempotencyKey !== undefined && !isValidIdempotencyKey(idempotencyKey)) {
    throw new ProblemError(
      ErrorCode.InvalidIdempotencyKey,
      `Idempotency-Key must be 1–${maxIdempotencyKeyLength} printable ASCII characters.`,
      { errors: [{ path: 'Idempotency-Key', message: 'invalid value' }] },
    );
  }
  const input = parseOrThrow(CreateCompositionBody, body);
  let lock: IdempotencyLock | null = null;
  if (idempotencyKey !== undefined) {
    const outcome = await deps.idempotency.acquire({
      scope: identity.subject,
      key: idempotencyKey,
      request_hash: contentHash({ method: 'POST', path: '/v1/compositions', body }),
      now: deps.clock.now(),
    });
    if (outcome.outcome === 'replay') {
      return { status: outcome.status, body: outcome.body as CompositionView, replayed: true };
    }
    if (outcome.outcome === 'in_flight') {
      throw new ProblemError(
        ErrorCode.IdempotencyInFlight,
        'A request with this Idempotency-Key is still being processed; retry shortly.',
      );
    }
    if (outcome.outcome === 'mismatch') {
      throw new ProblemError(
        ErrorCode.IdempotencyKeyReused,
        'This Idempotency-Key was already used with a different request body.',
        { errors: [{ path: 'Idempotency-Key', message: 'reused with a different body' }] },
      );
    }
    lock = outcome.lock;
  }
  try {
    const view = await acceptCreate(deps, identity, input, lock);
    return { status: 202, body: view, replayed: false };
  } catch (error) {
    if (lock) await deps.idempotency.release(lock).catch(() => {});
    throw error;
  }
}

async function acceptCreate(
  deps: CompositionDeps,
  identity: Identity,
  input: CreateCompositionBody,
  lock: IdempotencyLock | null,
): Promise<CompositionView> {
  const now = deps.clock.now();
  const result = await planFor(deps, input, now);
  rejectBlocked(result.blockers);
  const ttlSeconds = result.ttlSeconds as number;
  const baseline = result.baseline as NonNullable<Plan['baseline']>;
  const id = newId(IdPrefix.Composition);
  const owner: Owner = { kind: OwnerKind.User, subject: identity.subject };
  const at = now.toISOString();
  const operation = newOperation(id, OperationKind.Create, 1, 1, owner, now);
  const composition: CompositionRecord = {
    id,
    project: input.project,
    baseline: input.baseline,
    namespace: baseline.namespace,
    name: input.name,
    owner,
    generation: 1,
    observed_generation: 0,
    phase: Phase.Created,
    ttl_seconds: ttlSeconds,
    expires_at: addSeconds(now, ttlSeconds).toISOString(),
    created_at: at,
    updated_at: at,
    message_isolation: input.message_isolation,
    overrides: selectors(input.overrides),
    desired: desiredState(result),
    observed: { components: {}, blockers: [], updated_at: null },
    public_url: deps.previewUrl(id, baseline.preview_domain),
    public_ready: false,
    latest_operation: { id: operation.id, kind: operation.kind, status: operation.status },
    active_operation: operation.id,
    epoch: 1,
    message_subscriptions: input.message_isolation ? [] : null,
    destroyed_at: null,
    lock_version: 1,
  };
  const view = compositionView(composition, now);
  await deps.compositions.create({
    composition,
    operation,
    events: [
      event(composition, EventType.Accepted, owner, operation, now, 'composition accepted', {
        overrides: composition.overrides,
      }),
    ],
    idempotency: lock ? { lock, response: { status: 202, body: view } } : undefined,
  });
  await enqueueNextStep(deps, operation);
  return view;
}

export async function planComposition(deps: CompositionDeps, body: unknown): Promise<PlanView> {
  const input = parseOrThrow(CreateCompositionBody, body);
  return (await planFor(deps, input, deps.clock.now())).view;
}

export async function getComposition(deps: CompositionDeps, id: string): Promise<CompositionView> {
  return compositionView(await requireComposition(deps, id), deps.clock.now());
}

export async function getCompositionStatus(
  deps: CompositionDeps,
  id: string,
): Promise<CompositionStatusView> {
  return statusView(await requireComposition(deps, id), deps.clock.now());
}

export async function getCompositionEndpoints(
  deps: CompositionDeps,
  id: string,
): Promise<CompositionEndpointsView> {
  return endpointsView(await requireComposition(deps, id), deps.clock.now());
}

export async function listCompositions(
  deps: CompositionDeps,
  filter: { project: string | null },
  page: PageRequest,
): Promise<Page<CompositionView>> {
  const result = await deps.compositions.list(filter, page);
  const now = deps.clock.now();
  return {
    items: result.items.map((record) => compositionView(record, now)),
    next_cursor: result.next_cursor,
  };
}

export async function listEvents(
  deps: CompositionDeps,
  id: string,
  page: PageRequest,
): Promise<Page<CompositionEvent>> {
  await requireComposition(deps, id);
  return deps.compositions.listEvents(id, page);
}

/** PATCH: the complete desired override set for the next generation; a rolling, per-component rollout follows. */
export async function updateComposition(
  deps: CompositionDeps,
  identity: Identity,
  id: string,
  body: unknown,
): Promise<Accepted> {
  const input = parseOrThrow(UpdateCompositionBody, body);
  for (let attempt = 0; attempt < maxConflictRetries; attempt++) {
    const record = await requireComposition(deps, id);
    const now = deps.clock.now();
    refuseUpdate(record, input.expected_generation, now);
    const result = await planFor(
      deps,
      {
        project: record.project,
        baseline: record.baseline,
        overrides: input.overrides,
        message_isolation: false,
        expected_preview_revisions: input.expected_preview_revisions,
      },
      now,
      { ttl_seconds: record.ttl_seconds, expires_at: record.expires_at },
    );
    rejectBlocked(result.blockers);
    const owner: Owner = { kind: OwnerKind.User, subject: identity.subject };
    const generation = record.generation + 1;
    const epoch = record.epoch + 1;
    const operation = newOperation(id, OperationKind.Update, generation, epoch, owner, now);
    const next: CompositionRecord = {
      ...record,
      generation,
      phase: Phase.Updating,
      updated_at: now.toISOString(),
      overrides: selectors(input.overrides),
      desired: desiredState(result),
      latest_operation: { id: operation.id, kind: operation.kind, status: operation.status },
      active_operation: operation.id,
      epoch,
      lock_version: record.lock_version + 1,
    };
    const written = await deps.compositions.replace({
      composition: next,
      expected_lock_version: record.lock_version,
      operation,
      events: [
        event(
          next,
          EventType.UpdateRequested,
          owner,
          operation,
          now,
          `update to generation ${generation} requested`,
          {
            overrides: next.overrides,
          },
        ),
      ],
    });
    if (written) {
      await enqueueNextStep(deps, operation);
      return { status: 202, body: compositionView(next, now), replayed: false };
    }
  }
  throw new ProblemError(
    ErrorCode.OperationInProgress,
    'The composition kept changing; read it again and retry.',
  );
}

function refuseUpdate(record: CompositionRecord, expectedGeneration: number, now: Date): void {
  if (record.owner.kind === OwnerKind.Forge) {
    throw new ProblemError(
      ErrorCode.ForgeOwned,
      'This preview is managed by pull-request automation; use the pr-preview commands.',
    );
  }
  if (isExpired(record, now)) {
    throw new ProblemError(ErrorCode.CompositionExpired, `The composition expired at ${record.expires_at}.`);
  }
  if (record.phase === Phase.Destroying || record.phase === Phase.Destroyed) {
    throw new ProblemError(
      ErrorCode.CompositionNotUpdatable,
      `The composition is ${record.phase}; only ready or failed compositions can be updated.`,
    );
  }
  if (record.generation !== expectedGeneration) {
    throw new ProblemError(
      ErrorCode.GenerationMismatch,
      `expected_generation is ${expectedGeneration} but the composition is at generation ${record.generation}.`,
      { errors: [{ path: '/expected_generation', message: `current generation is ${record.generation}` }] },
    );
  }
  if (record.phase !== Phase.Ready && record.phase !== Phase.Failed) {
    throw new ProblemError(
      ErrorCode.OperationInProgress,
      `A ${record.latest_operation.kind} of this composition is in progress (phase ${record.phase}); wait for ready or failed.`,
    );
  }
}

export type DestroyReason = 'requested' | 'expired';

/**
 * DELETE (and the expiry sweep): accepted in every phase. Starting a destroy bumps the epoch, so
 * whatever operation is in flight stops at its next step. Repeating it changes nothing.
 */
export async function destroyComposition(
  deps: Pick<CompositionDeps, 'compositions' | 'jobs' | 'clock' | 'log'>,
  actor: CompositionEvent['actor'],
  id: string,
  reason: DestroyReason = 'requested',
): Promise<Accepted> {
  for (let attempt = 0; attempt < maxConflictRetries; attempt++) {
    const record = await requireComposition(deps, id);
    const now = deps.clock.now();
    // Repeats change nothing, except that a destroy which failed (nothing active) is started again.
    const destroyInFlight = record.phase === Phase.Destroying && record.active_operation !== null;
    if (record.phase === Phase.Destroyed || destroyInFlight) {
      return { status: 202, body: compositionView(record, now), replayed: false };
    }
    const owner: Owner = {
      kind: actor.kind === 'forge' ? OwnerKind.Forge : OwnerKind.User,
      subject: actor.subject,
    };
    const epoch = record.epoch + 1;
    const operation = newOperation(id, OperationKind.Destroy, record.generation, epoch, owner, now);
    const next: CompositionRecord = {
      ...record,
      phase: Phase.Destroying,
      updated_at: now.toISOString(),
      public_ready: false,
      latest_operation: { id: operation.id, kind: operation.kind, status: operation.status },
      active_operation: operation.id,
      epoch,
      lock_version: record.lock_version + 1,
    };
    const events: CompositionEvent[] = [];
    if (reason === 'expired') {
      events.push(
        eventFor(next, EventType.Expired, actor, operation.id, now, `expired at ${record.expires_at}`, {}),
      );
    }
    events.push(
      eventFor(next, EventType.DestroyRequested, actor, operation.id, now, 'destroy requested', {
        reason,
        superseded_operation: record.active_operation,
      }),
    );
    const written = await deps.compositions.replace({
      composition: next,
      expected_lock_version: record.lock_version,
      operation,
      supersede: record.active_operation ? { operation_id: record.active_operation } : undefined,
      events,
    });
    if (written) {
      await enqueueNextStep(deps, operation);
      return { status: 202, body: compositionView(next, now), replayed: false };
    }
  }
  throw new ProblemError(ErrorCode.OperationInProgress, 'The composition kept changing; retry the delete.');
}

/** The expiry sweep: starts the destroy (reason `expired`) of every composition past `expires_at`. */
export async function expireDue(
  deps: Pick<CompositionDeps, 'compositions' | 'jobs' | 'clock' | 'log'>,
  limit = 100,
): Promise<number> {
  const due = await deps.compositions.expired(deps.clock.now(), limit);
  let started = 0;
  for (const record of due) {
    try {
      await destroyComposition(deps, { kind: 'system', subject: 'expiry-sweep' }, record.id, 'expired');
      started++;
    } catch (error) {
      deps.log?.({
        level: 'warn',
        msg: 'expiry destroy failed',
        composition_id: record.id,
        error: String(error),
      });
    }
  }
  return started;
}

/**
 * Re-enqueues operations whose next step is overdue: a crash between the write and the send, or a
 * lost message, cannot strand an operation. Sending twice is harmless (steps are idempotent).
 */
export async function redispatchOverdue(
  deps: Pick<CompositionDeps, 'compositions' | 'jobs' | 'clock' | 'log'>,
  limit = 100,
): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.compositions.dueOperations(now, limit);
  let sent = 0;
  for (const operation of due) {
    const next: Operation = {
      ...operation,
      due_at: addSeconds(now, redispatchAfterSeconds).toISOString(),
      lock_version: operation.lock_version + 1,
    };
    if (!(await deps.compositions.replaceOperation(next, operation.lock_version))) continue;
    if (await enqueueNextStep(deps, next)) sent++;
  }
  return sent;
}

/** Sends the operation's next step. A failed send is logged, not thrown: the redispatch sweep delivers it. */
export async function enqueueNextStep(
  deps: Pick<CompositionDeps, 'jobs' | 'log'>,
  operation: Operation,
  delaySeconds = 0,
): Promise<boolean> {
  const step = operation.steps[operation.next_step];
  if (step === undefined) return false;
  try {
    await deps.jobs.send(
      { kind: 'step', operation_id: operation.id, composition_id: operation.composition_id, step },
      delaySeconds ? { delaySeconds } : {},
    );
    return true;
  } catch (error) {
    deps.log?.({
      level: 'warn',
      msg: 'enqueue failed; the redispatch sweep will retry',
      operation_id: operation.id,
      error: String(error),
    });
    return false;
  }
}

async function requireComposition(
  deps: Pick<CompositionDeps, 'compositions'>,
  id: string,
): Promise<CompositionRecord> {
  const record = await deps.compositions.get(id);
  if (!record) throw new ProblemError(ErrorCode.NotFound, `composition "${id}" not found`);
  return record;
}

async function planFor(
  deps: CompositionDeps,
  request: PlanRequest,
  now: Date,
  fixedLifetime?: { ttl_seconds: number; expires_at: string },
): Promise<Plan> {
  const buildIds = [
    ...new Set(
      Object.values(request.overrides).flatMap((o) => (o.build_id === undefined ? [] : [o.build_id])),
    ),
  ];
  const [catalog, builds] = await Promise.all([
    deps.catalog.readProject(request.project),
    Promise.all(
      buildIds.map(async (id): Promise<[string, Build | null]> => [id, await lookupBuild(deps, id)]),
    ),
  ]);
  return plan(request, {
    catalog,
    builds: new Map(builds),
    now,
    previewUrl: deps.previewUrl,
    ...(fixedLifetime ? { fixedLifetime } : {}),
  });
}

function lookupBuild(deps: CompositionDeps, id: string): Promise<Build | null> {
  return /^[a-z0-9-]{1,64}$/.test(id) ? deps.builds.get(id) : Promise.resolve(null);
}

/** Blockers become one error: 409 when the only problem is a changed profile revision, else 422. */
function rejectBlocked(blockers: readonly PlannedBlocker[]): void {
  if (blockers.length === 0) return;
  const errors: FieldError[] = blockers.map((b) => ({ path: b.path, message: b.message, code: b.code }));
  const detail = blockers.map((b) => b.message).join('; ');
  if (blockers.every((b) => b.code === BlockerCode.PreviewRevisionChanged)) {
    throw new ProblemError(ErrorCode.PreviewRevisionChanged, detail, { errors });
  }
  const unprocessable = blockers.filter((b) => b.code !== BlockerCode.PreviewRevisionChanged);
  const code = unprocessable.every((b) => referenceBlockers.has(b.code))
    ? ErrorCode.UnknownReference
    : ErrorCode.ValidationFailed;
  throw new ProblemError(code, detail, { errors });
}

function selectors(overrides: PlanRequest['overrides']): CompositionRecord['overrides'] {
  return Object.fromEntries(
    Object.entries(overrides).map(([name, o]) => [
      name,
      { image: o.image ?? null, build_id: o.build_id ?? null },
    ]),
  );
}

function desiredState(result: Plan): CompositionRecord['desired'] {
  return {
    images: result.view.images,
    inherited: result.view.inherited,
    profile_revisions: result.view.profile_revisions,
    catalog_version: result.catalogVersion?.version ?? 0,
    catalog_version_id: result.catalogVersion?.version_id ?? '',
  };
}

function newOperation(
  compositionId: string,
  kind: Operation['kind'],
  generation: number,
  epoch: number,
  owner: Owner,
  now: Date,
): Operation {
  const at = now.toISOString();
  return {
    id: newId(IdPrefix.Operation),
    composition_id: compositionId,
    kind,
    status: OperationStatus.Pending,
    generation,
    epoch,
    steps: operationSteps[kind],
    next_step: 0,
    due_at: addSeconds(now, redispatchAfterSeconds).toISOString(),
    created_at: at,
    updated_at: at,
    error: null,
    requested_by: owner,
    observations: { bad_since: {}, ready: null },
    lock_version: 1,
  };
}

function event(
  composition: CompositionRecord,
  type: CompositionEvent['type'],
  owner: Owner,
  operation: Operation,
  now: Date,
  message: string,
  data: Record<string, unknown>,
): CompositionEvent {
  return eventFor(
    composition,
    type,
    { kind: owner.kind, subject: owner.subject },
    operation.id,
    now,
    message,
    data,
  );
}

export function eventFor(
  composition: Pick<CompositionRecord, 'id' | 'generation'>,
  type: CompositionEvent['type'],
  actor: CompositionEvent['actor'],
  operationId: string | null,
  now: Date,
  message: string,
  data: Record<string, unknown>,
): CompositionEvent {
  return {
    id: newSortableId(IdPrefix.Event, now),
    composition_id: composition.id,
    type,
    at: now.toISOString(),
    actor,
    operation_id: operationId,
    generation: composition.generation,
    message,
    data,
  };
}
