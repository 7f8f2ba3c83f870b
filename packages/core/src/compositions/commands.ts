/**
 * The composition commands behind the HTTP routes: accept, validate, store, enqueue, answer. The
 * rollout itself is the worker's.
 */
import type { Identity } from '../auth/identity.ts';
import { addSeconds } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { idempotent } from '../idempotency/idempotent.ts';
import type { IdempotencyLock, IdempotentRequest } from '../idempotency/ports.ts';
import { IdPrefix, newId } from '../names.ts';
import { guardedWrite } from '../operations/fence.ts';
import { type Operation, OperationKind, type Owner, OwnerKind } from '../operations/model.ts';
import { newOperation } from '../operations/state.ts';
import { parseOrThrow } from '../validation.ts';
import { enqueueNextStep } from './dispatch.ts';
import { eventFor } from './events.ts';
import {
  type CompositionEvent,
  type CompositionRecord,
  EventType,
  holdsQuotaPlace,
  isExpired,
  Phase,
} from './model.ts';
import type { PlannablePlan } from './plan.ts';
import { desiredState, planFor, rejectBlocked, selectors } from './plan-request.ts';
import type { Accepted, CompositionDeps } from './ports.ts';
import { authorizedComposition, requireComposition } from './reads.ts';
import {
  type CompositionView,
  CreateCompositionBody,
  compositionView,
  UpdateCompositionBody,
} from './schema.ts';
import { SleepState } from './sleep.ts';

const maxConflictRetries = 5;

export async function create(
  deps: CompositionDeps,
  identity: Identity,
  input: CreateCompositionBody,
  idempotency: IdempotentRequest | null,
): Promise<Accepted> {
  return idempotent(deps, identity.subject, idempotency, async (lock) => ({
    status: 202,
    body: await acceptCreate(deps, identity, input, lock, {
      id: newId(IdPrefix.Composition),
      owner: { kind: OwnerKind.User, subject: identity.subject },
    }),
  }));
}

/**
 * A preview driven by pull-request automation: owned by the forge (`subject` names the pull
 * request), with an id the caller allocated first, so a retry after a crash creates the same one.
 */
export async function createForForge(
  deps: CompositionDeps,
  caller: Pick<Identity, 'grants'>,
  body: CreateCompositionBody,
  made: { id: string; subject: string },
): Promise<CompositionView> {
  const input = parseOrThrow(CreateCompositionBody, body);
  return acceptCreate(deps, caller, input, null, {
    id: made.id,
    owner: { kind: OwnerKind.Forge, subject: made.subject },
  });
}

async function acceptCreate(
  deps: CompositionDeps,
  caller: Pick<Identity, 'grants'>,
  input: CreateCompositionBody,
  lock: IdempotencyLock | null,
  { id, owner }: { id: string; owner: Owner },
): Promise<CompositionView> {
  const now = deps.clock.now();
  const result = await planFor(deps, caller, 'composition:write', input, now);
  rejectBlocked(result);
  const operation = newOperation(id, OperationKind.Create, 1, 1, owner, now);
  const composition = newComposition(deps, id, input, result, owner, operation, now);
  const view = compositionView(composition, now);
  await deps.compositions.create({
    quota: holdsQuotaPlace(composition) ? deps.liveCompositionQuota : undefined,
    // An apply gives a namespace up only once no composition of its project lives there: the
    // create holds the claim in its own write, so one planned on the catalog as it was can land
    // nowhere its project no longer holds.
    namespace: {
      cluster: result.baseline.cluster,
      namespace: composition.namespace,
      project: composition.project,
      baseline: composition.baseline,
    },
    composition,
    operation,
    events: [
      eventFor(composition, EventType.Accepted, owner, operation.id, now, 'composition accepted', {
        overrides: composition.overrides,
      }),
    ],
    idempotency: lock ? { lock, response: { status: 202, body: view } } : undefined,
  });
  await enqueueNextStep(deps, operation);
  return view;
}

/** A composition as accepted: generation 1, nothing observed yet, its create operation active. */
function newComposition(
  deps: Pick<CompositionDeps, 'previewUrl'>,
  id: string,
  input: CreateCompositionBody,
  result: PlannablePlan,
  owner: Owner,
  operation: Operation,
  now: Date,
): CompositionRecord {
  const { baseline, ttlSeconds } = result;
  const at = now.toISOString();
  return {
    id,
    project: input.project,
    baseline: result.baselineName,
    namespace: baseline.namespace,
    cluster: baseline.cluster,
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
    public_url: deps.previewUrl(id, baseline.preview_domain, baseline.cluster),
    public_ready: false,
    latest_operation: { id: operation.id, kind: operation.kind, status: operation.status },
    active_operation: operation.id,
    epoch: 1,
    message_subscriptions: input.message_isolation ? [] : null,
    sleep:
      result.sleepAfterSeconds === null
        ? null
        : { after_seconds: result.sleepAfterSeconds, state: SleepState.Awake, since: at },
    destroyed_at: null,
    lock_version: 1,
  };
}

/** PATCH: the complete desired override set for the next generation; a rolling, per-component rollout follows. */
export async function update(
  deps: CompositionDeps,
  identity: Identity,
  id: string,
  input: UpdateCompositionBody,
): Promise<Accepted> {
  const owner: Owner = { kind: OwnerKind.User, subject: identity.subject };
  return applyUpdate(deps, identity, id, input, owner);
}

/** Pull-request automation moving its own preview to new builds (generic updates refuse forge-owned ones). */
export function updateForForge(
  deps: CompositionDeps,
  caller: Pick<Identity, 'grants'>,
  id: string,
  input: UpdateCompositionBody,
  subject: string,
): Promise<Accepted> {
  return applyUpdate(deps, caller, id, parseOrThrow(UpdateCompositionBody, input), {
    kind: OwnerKind.Forge,
    subject,
  });
}

async function applyUpdate(
  deps: CompositionDeps,
  caller: Pick<Identity, 'grants'>,
  id: string,
  input: UpdateCompositionBody,
  owner: Owner,
): Promise<Accepted> {
  for (let attempt = 0; attempt < maxConflictRetries; attempt++) {
    const record = await requireComposition(deps, caller, id, 'composition:write');
    const now = deps.clock.now();
    refuseUpdate(record, input.expected_generation, now, owner.kind);
    const result = await planFor(
      deps,
      caller,
      'composition:write',
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
    rejectBlocked(result);
    const next = nextGeneration(record, input, result, owner, now);
    if (await deps.compositions.replace(next)) {
      await enqueueNextStep(deps, next.operation);
      return { status: 202, body: compositionView(next.composition, now), replayed: false };
    }
  }
  throw new ProblemError(
    ErrorCode.OperationInProgress,
    'The composition kept changing; read it again and retry.',
  );
}

/** The next generation with its update operation, written over the record read. */
function nextGeneration(
  record: CompositionRecord,
  input: UpdateCompositionBody,
  result: PlannablePlan,
  owner: Owner,
  now: Date,
) {
  const generation = record.generation + 1;
  const epoch = record.epoch + 1;
  const operation = newOperation(record.id, OperationKind.Update, generation, epoch, owner, now);
  const { record: composition, expected_lock_version } = guardedWrite(record, {
    ...record,
    generation,
    phase: Phase.Updating,
    updated_at: now.toISOString(),
    overrides: selectors(input.overrides),
    desired: desiredState(result),
    latest_operation: { id: operation.id, kind: operation.kind, status: operation.status },
    active_operation: operation.id,
    epoch,
  });
  const message = `update to generation ${generation} requested`;
  const requested = eventFor(composition, EventType.UpdateRequested, owner, operation.id, now, message, {
    overrides: composition.overrides,
  });
  return { composition, expected_lock_version, operation, events: [requested] };
}

function refuseUpdate(record: CompositionRecord, expectedGeneration: number, now: Date, by: OwnerKind): void {
  if (record.owner.kind === OwnerKind.Forge && by !== OwnerKind.Forge) {
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

/** Recorded on the `destroy_requested` event: a DELETE, the expiry sweep, or an Admin's drain of a cluster or the stage. */
export type DestroyReason = 'requested' | 'expired' | 'drained';

/**
 * DELETE (and the expiry sweep): accepted in every phase. Starting a destroy bumps the epoch, so
 * whatever operation is in flight stops at its next step. Repeating it changes nothing.
 */
export async function destroy(
  deps: Pick<CompositionDeps, 'compositions' | 'jobs' | 'clock' | 'log'>,
  caller: { actor: CompositionEvent['actor']; grants: Identity['grants'] },
  id: string,
  reason: DestroyReason = 'requested',
  /** The composition as the caller just read it (the expiry sweep's query): tried before reading. */
  known?: CompositionRecord,
): Promise<Accepted> {
  const { actor } = caller;
  for (let attempt = 0; attempt < maxConflictRetries; attempt++) {
    // A known record that changed meanwhile fails the conditional write and is read again.
    const record =
      attempt === 0 && known
        ? authorizedComposition(caller, known, 'composition:write')
        : await requireComposition(deps, caller, id, 'composition:write');
    const now = deps.clock.now();
    if (record.phase === Phase.Destroyed || destroyUnderWay(record)) {
      return { status: 202, body: compositionView(record, now), replayed: false };
    }
    const next = startDestroy(record, actor, reason, now);
    if (await deps.compositions.replace(next)) {
      await enqueueNextStep(deps, next.operation);
      return { status: 202, body: compositionView(next.composition, now), replayed: false };
    }
  }
  throw new ProblemError(ErrorCode.OperationInProgress, 'The composition kept changing; retry the delete.');
}

/** Repeating a destroy changes nothing, except that one which failed (nothing active) is started again. */
export function destroyUnderWay(record: Pick<CompositionRecord, 'phase' | 'active_operation'>): boolean {
  return record.phase === Phase.Destroying && record.active_operation !== null;
}

/** The destroy operation, superseding the one in flight, written over the record read. */
function startDestroy(
  record: CompositionRecord,
  actor: CompositionEvent['actor'],
  reason: DestroyReason,
  now: Date,
) {
  const owner: Owner = {
    kind: actor.kind === 'forge' ? OwnerKind.Forge : OwnerKind.User,
    subject: actor.subject,
  };
  const epoch = record.epoch + 1;
  const operation = newOperation(record.id, OperationKind.Destroy, record.generation, epoch, owner, now);
  const { record: composition, expected_lock_version } = guardedWrite(record, {
    ...record,
    phase: Phase.Destroying,
    updated_at: now.toISOString(),
    public_ready: false,
    latest_operation: { id: operation.id, kind: operation.kind, status: operation.status },
    active_operation: operation.id,
    epoch,
  });
  const events: CompositionEvent[] = [];
  if (record.active_operation) {
    const message = `${record.latest_operation.kind} superseded by a destroy`;
    events.push(
      eventFor(composition, EventType.Superseded, actor, record.active_operation, now, message, {
        superseded_by: operation.id,
      }),
    );
  }
  if (reason === 'expired') {
    const message = `expired at ${record.expires_at}`;
    events.push(eventFor(composition, EventType.Expired, actor, operation.id, now, message, {}));
  }
  events.push(
    eventFor(composition, EventType.DestroyRequested, actor, operation.id, now, 'destroy requested', {
      reason,
      superseded_operation: record.active_operation,
    }),
  );
  const supersede = record.active_operation ? { operation_id: record.active_operation } : undefined;
  return { composition, expected_lock_version, operation, supersede, events };
}
