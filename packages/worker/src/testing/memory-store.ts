/**
 * The composition store and the job queue in memory, for the worker's unit tests: the same
 * conditions as the DynamoDB store (every write conditional on the `lock_version` read, all or
 * nothing; leases taken, renewed and given up on the holder), on plain maps.
 */
import { Compositions, type Page, type PageRequest, type Verification } from '@svc/core';

type Store = Compositions.CompositionStore;
type Operation = Compositions.Operation;

const copy = <T>(value: T): T => structuredClone(value);

/** Newest first, `limit` at a time; the cursor is the index to read on from. */
function pageOf<T>(items: readonly T[], page: PageRequest): Page<T> {
  const start = page.after === null ? 0 : Number(page.after);
  const end = start + page.limit;
  return { items: copy(items.slice(start, end)), next_cursor: end < items.length ? String(end) : null };
}

export interface MemoryStore extends Store {
  readonly events: Compositions.CompositionEvent[];
  readonly checks: Verification.CheckRecord[];
  /** Runs once before the next commit: a writer that gets there first. */
  beforeNextCommit(write: () => void): void;
  /** Writes the operation as stored, as another writer would. */
  overwriteOperation(operation: Operation): void;
}

export function memoryStore(): MemoryStore {
  const compositions = new Map<string, Compositions.CompositionRecord>();
  const operations = new Map<string, Operation>();
  const events: Compositions.CompositionEvent[] = [];
  const checks: Verification.CheckRecord[] = [];
  let interloper: (() => void) | null = null;
  const opKey = (op: Pick<Operation, 'composition_id' | 'id'>) => `${op.composition_id}/${op.id}`;
  const unfinished = (op: Operation | undefined): op is Operation =>
    op !== undefined && Compositions.isUnfinished(op);
  const newestFirst = <T>(items: T[], at: (item: T) => string) =>
    [...items].sort((a, b) => at(b).localeCompare(at(a)));

  /** Applies `change` to the stored operation when `condition` holds of it; the operation as written. */
  function updateOperation(
    ref: Pick<Operation, 'composition_id' | 'id'>,
    condition: (stored: Operation) => boolean,
    change: (stored: Operation) => Partial<Operation>,
  ): Operation | null {
    const stored = operations.get(opKey(ref));
    if (!unfinished(stored) || !condition(stored)) return null;
    const written = { ...stored, ...change(stored) };
    operations.set(opKey(ref), written);
    return copy(written);
  }

  const store: MemoryStore = {
    events,
    checks,
    beforeNextCommit(write) {
      interloper = write;
    },
    overwriteOperation(operation) {
      operations.set(opKey(operation), copy(operation));
    },

    get: async (id) => copy(compositions.get(id) ?? null),

    async list(filter, page) {
      const listed = [...compositions.values()].filter(
        (c) =>
          c.phase !== Compositions.Phase.Destroyed &&
          (filter.project === null || c.project === filter.project),
      );
      return pageOf(
        newestFirst(listed, (c) => c.created_at),
        page,
      );
    },

    async create({ composition, operation, events: written }) {
      if (compositions.has(composition.id)) throw new Error(`composition ${composition.id} exists`);
      compositions.set(composition.id, copy(composition));
      operations.set(opKey(operation), copy(operation));
      events.push(...copy(written));
    },

    async replace({ composition, expected_lock_version, operation, supersede, events: written }) {
      if (compositions.get(composition.id)?.lock_version !== expected_lock_version) return false;
      compositions.set(composition.id, copy(composition));
      if (operation) operations.set(opKey(operation), copy(operation));
      if (supersede) {
        updateOperation(
          { composition_id: composition.id, id: supersede.operation_id },
          () => true,
          (stored) => ({
            status: Compositions.OperationStatus.Superseded,
            updated_at: composition.updated_at,
            lock_version: stored.lock_version + 1,
          }),
        );
      }
      events.push(...copy(written));
      return true;
    },

    async commit({ composition, operation, events: written = [], checks: ran = [] }) {
      const interloping = interloper;
      interloper = null;
      interloping?.();
      if (composition) {
        const stored = compositions.get(composition.record.id);
        if (stored?.lock_version !== composition.expected_lock_version) return false;
        // Only the write that finishes a destroy may find the composition not yet destroyed.
        const finishing = composition.record.phase === Compositions.Phase.Destroyed;
        if (finishing && stored.phase === Compositions.Phase.Destroyed) return false;
      }
      if (
        operation &&
        operations.get(opKey(operation.record))?.lock_version !== operation.expected_lock_version
      ) {
        return false;
      }
      if (composition) compositions.set(composition.record.id, copy(composition.record));
      if (operation) operations.set(opKey(operation.record), copy(operation.record));
      events.push(...copy(written));
      checks.push(...copy(ran));
      return true;
    },

    getOperation: async (compositionId, operationId) =>
      copy(operations.get(opKey({ composition_id: compositionId, id: operationId })) ?? null),

    takeOver: async (operation, dueAt) =>
      updateOperation(
        operation,
        (stored) => stored.due_at === operation.due_at,
        (stored) => ({ due_at: dueAt, lease_holder: null, lock_version: stored.lock_version + 1 }),
      ) !== null,

    takeLease: async (operation, { holder, until, now }) =>
      updateOperation(
        operation,
        (stored) =>
          stored.lock_version === operation.lock_version &&
          (!stored.lease_holder ||
            stored.lease_holder === holder ||
            (stored.due_at !== null && stored.due_at <= now.toISOString())),
        (stored) => ({ due_at: until, lease_holder: holder, lock_version: stored.lock_version + 1 }),
      ),

    releaseLease: async (operation, { holder, dueAt }) =>
      updateOperation(
        operation,
        (stored) => stored.lease_holder === holder,
        () => ({ due_at: dueAt, lease_holder: null }),
      ) !== null,

    renewLease: async (operation, { holder, until }) =>
      updateOperation(
        operation,
        (stored) => stored.lease_holder === holder && stored.status === Compositions.OperationStatus.Running,
        () => ({ due_at: until }),
      ) !== null,

    async appendEvents(written) {
      events.push(...copy(written));
    },

    listEvents: async (compositionId, page) =>
      pageOf(
        newestFirst(
          events.filter((e) => e.composition_id === compositionId),
          (e) => e.at,
        ),
        page,
      ),

    async putCheck(check) {
      checks.push(copy(check));
    },

    listChecks: async (compositionId, page) =>
      pageOf(
        newestFirst(
          checks.filter((c) => c.composition_id === compositionId),
          (c) => c.ran_at,
        ),
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
          .filter((c) => !['destroying', 'destroyed'].includes(c.phase) && c.expires_at <= now.toISOString())
          .slice(0, limit),
      ),
  };
  return store;
}

/** A job queue that keeps what was sent, with its delay. */
export function memoryQueue(): Compositions.JobQueue & {
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
