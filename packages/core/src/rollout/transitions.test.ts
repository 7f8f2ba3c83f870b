import { describe, expect, it } from 'vitest';
import { CheckKind, type CheckRecord, CheckStatus } from '../checks/model.ts';
import { EventType, Phase } from '../compositions/model.ts';
import { leaseSeconds, overdueAt, redispatchAfterSeconds } from '../operations/lease.ts';
import { OperationKind, OperationStatus, StepName } from '../operations/model.ts';
import { isUnfinished } from '../operations/state.ts';
import { composition, now, withOperation } from '../testing/fixtures.ts';
import { chainFrom, chainWrite, handOff } from './chain.ts';
import {
  advanceOperation,
  completeOperation,
  failOperation,
  startOperation,
  supersedeOperation,
  waitOperation,
} from './transitions.ts';

const later = new Date(now.getTime() + 5_000);
const inSeconds = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000).toISOString();
const blocker = { code: 'image_pull_failed', message: 'image x cannot be pulled', component: 'service-b' };

describe('start', () => {
  it('runs the operation, leased to the chain that starts it, and takes a created composition to provisioning, both guarded', () => {
    const { composition: created, operation } = withOperation(composition(), OperationKind.Create);
    expect(operation.lease_holder).toBeNull();
    const write = startOperation(created, operation, now, 'chain-1');
    expect(write.composition.record).toMatchObject({
      phase: Phase.Provisioning,
      latest_operation: { id: operation.id, status: OperationStatus.Running },
      lock_version: created.lock_version + 1,
    });
    expect(write.composition.expected_lock_version).toBe(created.lock_version);
    expect(write.operation).toMatchObject({
      record: {
        status: OperationStatus.Running,
        lock_version: 2,
        lease_holder: 'chain-1',
        due_at: inSeconds(now, leaseSeconds),
      },
      expected_lock_version: 1,
    });
    expect(write.events).toMatchObject([
      { type: EventType.StepStarted, message: 'create: apply started', data: { step: 'apply' } },
    ]);
  });

  it('leaves the phase of an update as it is', () => {
    const { composition: updating, operation } = withOperation(composition(), OperationKind.Update);
    expect(startOperation(updating, operation, now, 'chain-1').composition.record.phase).toBe(Phase.Updating);
  });
});

describe('advance', () => {
  const { composition: record, operation } = withOperation(composition(), OperationKind.Create);
  const running = { ...operation, status: OperationStatus.Running, lease_holder: 'chain-1' };

  it('moves to the next step, still leased, forgets what the finished step observed and records both events', () => {
    const waited = { ...running, observations: { bad_since: {}, ready: 1 } };
    const { chain, next } = advanceOperation(chainFrom(waited), record, StepName.Apply, later);
    expect(next).toBe(StepName.AwaitRollout);
    expect(chain.operation).toMatchObject({
      next_step: 1,
      status: OperationStatus.Running,
      observations: { bad_since: {}, ready: null },
      due_at: inSeconds(later, leaseSeconds),
      lease_holder: 'chain-1',
    });
    expect(chain.written).toBe(waited);
    expect(chain.events.map((e) => e.message)).toEqual([
      'create: apply finished',
      'create: await-rollout started',
    ]);
  });

  it('succeeds after the last step, with nothing due', () => {
    const atFinish = { ...running, next_step: 3 };
    const { chain, next } = advanceOperation(chainFrom(atFinish), record, StepName.Finish, later);
    expect(next).toBeNull();
    expect(chain.operation).toMatchObject({
      next_step: 4,
      status: OperationStatus.Succeeded,
      due_at: null,
      lease_holder: null,
    });
    expect(chain.events.map((e) => e.type)).toEqual([EventType.StepFinished]);
  });
});

describe('wait', () => {
  const { composition: record, operation } = withOperation(composition(), OperationKind.Create);
  const observations = {
    bad_since: { 'service-b': { reason: 'ErrImagePull', since: now.toISOString() } },
    ready: 0,
  };

  it('keeps what the step saw, gives the lease up and is due once the delayed message had its pickup allowance', () => {
    const leased = { ...operation, lease_holder: 'chain-1', due_at: inSeconds(now, leaseSeconds) };
    const chain = waitOperation(
      chainFrom(leased),
      record,
      { kind: 'wait', delaySeconds: 1, observations },
      later,
    );
    expect(chain.operation).toMatchObject({
      observations,
      lease_holder: null,
      due_at: inSeconds(later, 1 + redispatchAfterSeconds),
    });
    expect(overdueAt(later, 1)).toBe(inSeconds(later, 1 + redispatchAfterSeconds));
    expect(chain.events).toEqual([]);
  });

  it('writes even a look that saw nothing new: the lease must go', () => {
    const leased = { ...operation, observations, lease_holder: 'chain-1' };
    const same = { kind: 'wait', delaySeconds: 5, observations } as const;
    expect(chainWrite(waitOperation(chainFrom(leased), record, same, later))?.operation.record).toMatchObject(
      {
        lease_holder: null,
        due_at: overdueAt(later, 5),
      },
    );
  });

  it('records progress as an event when the step reports some', () => {
    const progress = '0 of 1 forks rolled out';
    const chain = waitOperation(
      chainFrom(operation),
      record,
      { kind: 'wait', delaySeconds: 0, observations, progress },
      later,
    );
    expect(chain.events).toMatchObject([{ type: EventType.RolloutProgress, message: progress }]);
  });
});

describe('handing off', () => {
  const { operation } = withOperation(composition(), OperationKind.Create);
  const held = {
    ...operation,
    status: OperationStatus.Running,
    lease_holder: 'chain-1',
    due_at: inSeconds(now, 3),
  };

  it('are given up when a chain hands the operation to the queue, keeping its progress', () => {
    const chain = { ...chainFrom(held), operation: { ...held, next_step: 2 } };
    expect(handOff(chain, later).operation).toMatchObject({
      next_step: 2,
      lease_holder: null,
      due_at: overdueAt(later),
    });
  });
});

describe('saving a chain', () => {
  const { operation } = withOperation(composition(), OperationKind.Create);

  it('writes nothing when the chain changed nothing', () => {
    expect(chainWrite(chainFrom(operation))).toBeNull();
  });

  it('writes the operation as it stands, guarded by the version last written, with its events', () => {
    const { chain } = advanceOperation(chainFrom(operation), composition(), StepName.Apply, later);
    const write = chainWrite(chain);
    expect(write?.operation).toEqual({
      record: { ...chain.operation, lock_version: operation.lock_version + 1 },
      expected_lock_version: operation.lock_version,
    });
    expect(write?.events).toHaveLength(2);
  });

  it('carries the check a step ran into the next write, whichever it is', () => {
    const check = {
      id: 'chk-1',
      composition_id: 'c-1',
      kind: CheckKind.Routing,
      generation: 1,
      ran_at: now.toISOString(),
      target: 'https://c-1.preview.example.com/',
      status: CheckStatus.Passed,
      fingerprint: { inputs: {}, hash: 'h' },
    } as CheckRecord;
    const atVerify = chainFrom({ ...operation, next_step: 2 });
    const { chain } = advanceOperation(atVerify, composition(), StepName.Verify, later, { check });
    expect(chainWrite(chain)?.checks).toEqual([check]);
    expect(completeOperation(composition(), chain, composition(), later).checks).toEqual([check]);
    expect(failOperation(composition(), chain, [blocker], later).checks).toEqual([check]);
    const { chain: after } = advanceOperation(chainFrom(operation), composition(), StepName.Apply, later);
    expect(chainWrite(after)?.checks).toEqual([]);
  });
});

describe('a step that went on without removing something', () => {
  it('records what it left behind as a cleanup_incomplete event and moves on', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Destroy);
    expect(operation.steps).toEqual([
      StepName.Delete,
      StepName.AwaitDeletion,
      StepName.ReleaseMessaging,
      StepName.Finish,
    ]);
    const leftover = { code: 'messaging_access_denied', message: 'topic "orders" refused', component: null };
    const { chain, next } = advanceOperation(
      chainFrom({ ...operation, next_step: 2 }),
      record,
      StepName.ReleaseMessaging,
      later,
      { leftovers: [leftover] },
    );
    expect(next).toBe(StepName.Finish);
    expect(chain.events.map((e) => e.type)).toEqual([
      EventType.StepFinished,
      EventType.CleanupIncomplete,
      EventType.StepStarted,
    ]);
    expect(chain.events[1]).toMatchObject({
      message: 'release-messaging left something behind: topic "orders" refused',
      data: { step: StepName.ReleaseMessaging, blockers: [leftover] },
    });
  });
});

describe('complete', () => {
  it('makes a rollout ready with its images, nothing active, the operation succeeded', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Update);
    const { chain } = advanceOperation(
      chainFrom({ ...operation, next_step: 3 }),
      record,
      StepName.Finish,
      later,
    );
    const final = { ...record, phase: Phase.Ready };
    const write = completeOperation(record, chain, final, later);
    expect(write.composition).toMatchObject({
      record: {
        phase: Phase.Ready,
        active_operation: null,
        latest_operation: { status: OperationStatus.Succeeded },
        lock_version: record.lock_version + 1,
      },
      expected_lock_version: record.lock_version,
    });
    expect(write.operation?.record.status).toBe(OperationStatus.Succeeded);
    expect(write.events.at(-1)).toMatchObject({
      type: EventType.Ready,
      message: `generation ${operation.generation} is rolled out`,
      data: { images: { 'service-b': record.desired.images['service-b']?.image } },
    });
  });

  it('ends a destroy with a destroyed event', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Destroy);
    const { chain } = advanceOperation(
      chainFrom({ ...operation, next_step: 3 }),
      record,
      StepName.Finish,
      later,
    );
    const write = completeOperation(record, chain, { ...record, phase: Phase.Destroyed }, later);
    expect(write.events.at(-1)).toMatchObject({ type: EventType.Destroyed });
  });
});

describe('fail', () => {
  it('fails a create: blockers recorded, not public, nothing active, the error from the first blocker', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Create);
    const write = failOperation(record, chainFrom(operation), [blocker], later);
    expect(write.composition?.record).toMatchObject({
      phase: Phase.Failed,
      public_ready: false,
      active_operation: null,
      observed: { blockers: [blocker], updated_at: later.toISOString() },
      latest_operation: { status: OperationStatus.Failed },
    });
    expect(write.operation?.record).toMatchObject({
      status: OperationStatus.Failed,
      due_at: null,
      error: { code: 'image_pull_failed', message: 'image x cannot be pulled' },
    });
    expect(write.events).toMatchObject([{ type: EventType.Failed, data: { blockers: [blocker] } }]);
  });

  it('keeps a failed update publicly ready: the previous generation keeps serving', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Update);
    const write = failOperation(record, chainFrom(operation), [blocker], later);
    expect(write.composition?.record).toMatchObject({ phase: Phase.Failed, public_ready: true });
  });

  it('leaves a failed destroy destroying, so a new DELETE can start it again', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Destroy);
    const write = failOperation(record, chainFrom(operation), [blocker], later);
    expect(write.composition?.record).toMatchObject({ phase: Phase.Destroying, active_operation: null });
  });

  it('writes the chain with its events, and no composition when the operation is no longer current', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Create);
    const { chain } = advanceOperation(chainFrom(operation), record, StepName.Apply, later);
    const write = failOperation({ ...record, epoch: record.epoch + 1 }, chain, [blocker], later);
    expect(write.composition).toBeUndefined();
    expect(write.operation).toMatchObject({
      record: { next_step: 1, status: OperationStatus.Failed },
      expected_lock_version: operation.lock_version,
    });
    expect(write.events.map((e) => e.type)).toEqual([
      EventType.StepFinished,
      EventType.StepStarted,
      EventType.Failed,
    ]);
  });

  it('says "failed" when no blocker gives a code', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Create);
    expect(failOperation(record, chainFrom(operation), [], later).operation?.record.error?.code).toBe(
      'failed',
    );
  });
});

describe('supersede', () => {
  const { composition: record, operation } = withOperation(composition(), OperationKind.Update);

  it('stops the operation as superseded, with nothing due, and says so on the composition', () => {
    const write = supersedeOperation(operation, record, later);
    expect(write.operation).toMatchObject({
      record: { status: OperationStatus.Superseded, due_at: null, lock_version: 2 },
      expected_lock_version: 1,
    });
    expect(write.events).toMatchObject([
      { type: EventType.Superseded, message: 'update superseded by a later operation' },
    ]);
    expect(isUnfinished(write.operation?.record ?? operation)).toBe(false);
  });

  it('records no event when the composition is gone', () => {
    expect(supersedeOperation(operation, null, later).events).toEqual([]);
  });
});
