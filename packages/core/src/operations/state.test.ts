import { describe, expect, it } from 'vitest';
import { composition, now, withOperation } from '../testing/fixtures.ts';
import { guardedWrite, isCurrentOperation } from './fence.ts';
import { leasedByAnother, leaseSeconds, overdueAt, redispatchAfterSeconds } from './lease.ts';
import { OperationKind, OperationStatus, StepName } from './model.ts';
import { isUnfinished, newOperation, nextStep } from './state.ts';

const inSeconds = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000).toISOString();

describe('a new operation', () => {
  it('is pending at its first step, due for redispatch, at lock version 1', () => {
    const operation = newOperation('c-1', OperationKind.Destroy, 2, 3, composition().owner, now);
    expect(operation).toMatchObject({
      status: OperationStatus.Pending,
      generation: 2,
      epoch: 3,
      steps: [StepName.Delete, StepName.AwaitDeletion, StepName.ReleaseMessaging, StepName.Finish],
      next_step: 0,
      due_at: inSeconds(now, redispatchAfterSeconds),
      lock_version: 1,
      observations: { bad_since: {}, ready: null },
    });
    expect(nextStep(operation)).toBe(StepName.Delete);
    expect(isUnfinished(operation)).toBe(true);
  });

  it('creates and updates run apply, await-rollout, verify and finish', () => {
    for (const kind of [OperationKind.Create, OperationKind.Update]) {
      expect(newOperation('c-1', kind, 1, 1, composition().owner, now).steps).toEqual([
        'apply',
        'await-rollout',
        'verify',
        'finish',
      ]);
    }
  });
});

describe('when an operation is overdue', () => {
  it('leaves a message in the queue its pickup allowance, and nothing more: a running chain holds a lease instead', () => {
    expect(overdueAt(now)).toBe(inSeconds(now, redispatchAfterSeconds));
    expect(overdueAt(now, 5)).toBe(inSeconds(now, 5 + redispatchAfterSeconds));
    expect(leaseSeconds).toBeLessThan(redispatchAfterSeconds);
  });
});

describe('guarded writes', () => {
  it('are conditional on the version read and one version past it', () => {
    expect(guardedWrite({ lock_version: 4 }, { lock_version: 4, name: 'x' })).toEqual({
      record: { lock_version: 5, name: 'x' },
      expected_lock_version: 4,
    });
  });
});

describe('fencing', () => {
  it('lets only the active operation of the current epoch act', () => {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Update);
    expect(isCurrentOperation(record, operation)).toBe(true);
    expect(isCurrentOperation({ ...record, epoch: record.epoch + 1 }, operation)).toBe(false);
    expect(isCurrentOperation({ ...record, active_operation: 'op-other' }, operation)).toBe(false);
  });
});

describe('leases', () => {
  const { operation } = withOperation(composition(), OperationKind.Create);
  const held = {
    ...operation,
    status: OperationStatus.Running,
    lease_holder: 'chain-1',
    due_at: inSeconds(now, 3),
  };

  it('belong to another chain only while they have not lapsed', () => {
    expect(leasedByAnother(held, 'chain-2', now)).toBe(true);
    expect(leasedByAnother(held, 'chain-1', now)).toBe(false);
    expect(leasedByAnother(held, 'chain-2', new Date(now.getTime() + 3_000))).toBe(false);
    expect(leasedByAnother({ ...held, lease_holder: null }, 'chain-2', now)).toBe(false);
    const { lease_holder: _, ...older } = held;
    expect(leasedByAnother(older, 'chain-2', now)).toBe(false);
  });
});
