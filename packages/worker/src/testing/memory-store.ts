/**
 * The composition store (with its checks) and the job queue in memory, for the worker's unit tests: the same
 * conditions as the DynamoDB store (every write conditional on the `lock_version` read, all or
 * nothing; leases taken, renewed and given up on the holder), on plain maps.
 */
import {
  type Checks,
  Compositions,
  type Jobs,
  Operations,
  type Page,
  type PageRequest,
  type Rollout,
} from '@svc/core';

type Store = Rollout.RolloutStore;
type Operation = Operations.Operation;
type OperationRef = Pick<Operation, 'composition_id' | 'id'>;

const copy = <T>(value: T): T => structuredClone(value);

interface State {
  compositions: Map<string, Compositions.CompositionRecord>;
  operations: Map<string, Operation>;
  events: Compositions.CompositionEvent[];
  checks: Checks.CheckRecord[];
  /** A write of another writer that lands just before the next commit. */
  interloper: (() => void) | null;
}

const opKey = (op: OperationRef) => `${op.composition_id}/${op.id}`;

const unfinished = (op: Operation | undefined): op is Operation =>
  op !== undefined && Operations.isUnfinished(op);

/** Newest first, `limit` at a time; the cursor is the index to read on from. */
function newestFirst<T>(items: T[], at: (item: T) => string, page: PageRequest): Page<T> {
  const sorted = [...items].sort((a, b) => at(b).localeCompare(at(a)));
  const start = page.after === null ? 0 : Number(page.after);
  const end = start + page.limit;
  return { items: copy(sorted.slice(start, end)), next_cursor: end < sorted.length ? String(end) : null };
}

type Condition = (stored: Operation) => boolean;
type Change = (stored: Operation) => Partial<Operation>;

/** Applies `change` to the stored unfinished operation when `condition` holds of it; the operation as written. */
function updateOperation(
  state: State,
  ref: OperationRef,
  condition: Condition,
  change: Change,
): Operation | null {
  const stored = state.operations.get(opKey(ref));
  if (!unfinished(stored) || !condition(stored)) return null;
  const written = { ...stored, ...change(stored) };
  state.operations.set(opKey(ref), written);
  return copy(written);
}

/** Whether the commit's conditions hold: each record still at the `lock_version` read. */
function commitHolds(state: State, write: Parameters<Store['commit']>[0]): boolean {
  const { composition, operation } = write;
  if (composition) {
    const stored = state.compositions.get(composition.record.id);
    if (stored?.lock_version !== composition.expected_lock_version) return false;
    // Only the write that finishes a destroy may find the composition not yet destroyed.
    const finishing = composition.record.phase === Compositions.Phase.Destroyed;
    if (finishing && stored.phase === Compositions.Phase.Destroyed) return false;
  }
  return (
    !operation ||
    state.operations.get(opKey(operation.record))?.lock_version === operation.expected_lock_version
  );
}

function writes(state: State): Pick<Store, 'create' | 'replace' | 'commit' | 'appendEvents'> {
  return {
    async create({ composition, operation, events }) {
      if (state.compositions.has(composition.id)) throw new Error(`composition ${composition.id} exists`);
      state.compositions.set(composition.id, copy(composition));
      state.operations.set(opKey(operation), copy(operation));
      state.events.push(...copy(events));
    },
    async replace({ composition, expected_lock_version, operation, supersede, events }) {
      if (state.compositions.get(composition.id)?.lock_version !== expected_lock_version) return false;
      state.compositions.set(composition.id, copy(composition));
      if (operation) state.operations.set(opKey(operation), copy(operation));
      if (supersede) {
        const ref = { composition_id: composition.id, id: supersede.operation_id };
        updateOperation(
          state,
          ref,
          () => true,
          (stored) => ({
            status: Operations.OperationStatus.Superseded,
            updated_at: composition.updated_at,
            lock_version: stored.lock_version + 1,
          }),
        );
      }
      state.events.push(...copy(events));
      return true;
    },
    async commit(write) {
      const interloper = state.interloper;
      state.interloper = null;
      interloper?.();
      if (!commitHolds(state, write)) return false;
      if (write.composition)
        state.compositions.set(write.composition.record.id, copy(write.composition.record));
      if (write.operation) state.operations.set(opKey(write.operation.record), copy(write.operation.record));
      state.events.push(...copy(write.events ?? []));
      state.checks.push(...copy(write.checks ?? []));
      return true;
    },
    async appendEvents(events) {
      state.events.push(...copy(events));
    },
  };
}

function leases(state: State): Pick<Store, 'takeOver' | 'takeLease' | 'releaseLease' | 'renewLease'> {
  const update = (ref: OperationRef, condition: Condition, change: Change) =>
    updateOperation(state, ref, condition, change);
  return {
    takeOver: async (operation, dueAt) =>
      update(
        operation,
        (stored) => stored.due_at === operation.due_at,
        (stored) => ({ due_at: dueAt, lease_holder: null, lock_version: stored.lock_version + 1 }),
      ) !== null,
    takeLease: async (operation, { holder, until, now }) =>
      update(
        operation,
        (stored) =>
          stored.lock_version === operation.lock_version &&
          (!stored.lease_holder ||
            stored.lease_holder === holder ||
            (stored.due_at !== null && stored.due_at <= now.toISOString())),
        (stored) => ({ due_at: until, lease_holder: holder, lock_version: stored.lock_version + 1 }),
      ),
    releaseLease: async (operation, { holder, dueAt }) =>
      update(
        operation,
        (stored) => stored.lease_holder === holder,
        () => ({ due_at: dueAt, lease_holder: null }),
      ) !== null,
    renewLease: async (operation, { holder, until }) =>
      update(
        operation,
        (stored) => stored.lease_holder === holder && stored.status === Operations.OperationStatus.Running,
        () => ({ due_at: until }),
      ) !== null,
  };
}

function reads(
  state: State,
): Pick<
  Store,
  'get' | 'list' | 'listOnCluster' | 'getOperation' | 'listEvents' | 'dueOperations' | 'expired'
> {
  const { compositions, operations } = state;
  const live = (c: Compositions.CompositionRecord) => c.phase !== Compositions.Phase.Destroyed;
  const tornDown: string[] = [Compositions.Phase.Destroying, Compositions.Phase.Destroyed];
  return {
    get: async (id) => copy(compositions.get(id) ?? null),
    list: async (filter, page) =>
      newestFirst(
        [...compositions.values()].filter(
          (c) => live(c) && (filter.project === null || c.project === filter.project),
        ),
        (c) => c.created_at,
        page,
      ),
    listOnCluster: async (cluster, page) =>
      newestFirst(
        [...compositions.values()].filter(
          (c) => live(c) && (c.cluster === cluster.name || (cluster.unnamedToo && c.cluster === undefined)),
        ),
        (c) => c.created_at,
        page,
      ),
    getOperation: async (compositionId, id) =>
      copy(operations.get(opKey({ composition_id: compositionId, id })) ?? null),
    listEvents: async (id, page) =>
      newestFirst(
        state.events.filter((e) => e.composition_id === id),
        (e) => e.at,
        page,
      ),
    dueOperations: async (now, limit) =>
      copy(
        [...operations.values()]
          .filter((op) => unfinished(op) && op.due_at !== null && op.due_at <= now.toISOString())
          .slice(0, limit),
      ),
    expired: async (now, limit) =>
      copy(
        [...compositions.values()]
          .filter((c) => !tornDown.includes(c.phase) && c.expires_at <= now.toISOString())
          .slice(0, limit),
      ),
  };
}

export interface MemoryStore extends Store {
  readonly events: Compositions.CompositionEvent[];
  readonly checks: Checks.CheckRecord[];
  /** The checks as their own store sees them. */
  readonly checkStore: Checks.CheckStore;
  /** Runs once before the next commit: a writer that gets there first. */
  beforeNextCommit(write: () => void): void;
  /** Writes the operation as stored, as another writer would. */
  overwriteOperation(operation: Operation): void;
}

export function memoryStore(): MemoryStore {
  const state: State = {
    compositions: new Map(),
    operations: new Map(),
    events: [],
    checks: [],
    interloper: null,
  };
  return {
    ...reads(state),
    ...writes(state),
    ...leases(state),
    events: state.events,
    checks: state.checks,
    checkStore: {
      async put(check) {
        state.checks.push(copy(check));
      },
      list: async (id, page) =>
        newestFirst(
          state.checks.filter((c) => c.composition_id === id),
          (c) => c.ran_at,
          page,
        ),
    },
    beforeNextCommit(write) {
      state.interloper = write;
    },
    overwriteOperation(operation) {
      state.operations.set(opKey(operation), copy(operation));
    },
  };
}

/** A job queue that keeps what was sent, with its delay. */
export function memoryQueue(): Jobs.JobQueue & {
  readonly sent: { job: unknown; delaySeconds: number }[];
} {
  const sent: { job: unknown; delaySeconds: number }[] = [];
  return {
    sent,
    async send(job, options = {}) {
      sent.push({ job: copy(job), delaySeconds: options.delaySeconds ?? 0 });
    },
  };
}
