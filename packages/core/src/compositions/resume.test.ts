import { describe, expect, it } from 'vitest';
import { overdueAt } from '../operations/lease.ts';
import { OperationKind, OperationStatus, StepName } from '../operations/model.ts';
import { chainFrom } from '../rollout/chain.ts';
import { failOperation } from '../rollout/transitions.ts';
import { composition, now, withOperation } from '../testing/fixtures.ts';
import { EventType, Phase } from './model.ts';
import { notResumable, resumeOperation } from './resume.ts';

const later = new Date(now.getTime() + 5_000);
const blocker = { code: 'image_pull_failed', message: 'image x cannot be pulled', component: 'service-b' };

describe('resuming a failed operation (a dead job replayed)', () => {
  const replay = {
    actor: { kind: 'machine' as const, subject: 'token:ops' },
    reason: 'fixed',
    message_id: 'm-1',
  };

  function failedCreate() {
    const { composition: record, operation } = withOperation(composition(), OperationKind.Create);
    const atVerify = chainFrom({ ...operation, status: OperationStatus.Running, next_step: 2 });
    const write = failOperation(record, atVerify, [blocker], now);
    return { record: write.composition?.record ?? record, operation: write.operation?.record ?? operation };
  }

  it('takes it up again at the step that failed, the composition back in its phase without blockers', () => {
    const { record, operation } = failedCreate();
    expect(notResumable(record, operation, later)).toBeNull();
    const write = resumeOperation(record, operation, replay, later);
    expect(write.operation.record).toMatchObject({
      status: OperationStatus.Running,
      next_step: 2,
      error: null,
      lease_holder: null,
      due_at: overdueAt(later),
    });
    expect(write.composition.record).toMatchObject({
      phase: Phase.Provisioning,
      active_operation: operation.id,
      latest_operation: { status: OperationStatus.Running },
      observed: { blockers: [] },
    });
    expect(write.composition.expected_lock_version).toBe(record.lock_version);
    expect(write.events).toMatchObject([
      {
        type: EventType.Replayed,
        actor: replay.actor,
        message: 'create from verify replayed from the dead-letter queue: fixed',
        data: { reason: 'fixed', message_id: 'm-1', step: StepName.Verify },
      },
    ]);
  });

  it('refuses one a later operation took over, one that did not fail, and an expired composition', () => {
    const { record, operation } = failedCreate();
    expect(
      notResumable(
        { ...record, latest_operation: { ...record.latest_operation, id: 'op-later' } },
        operation,
        later,
      ),
    ).toMatch(/later operation/);
    expect(notResumable(record, { ...operation, status: OperationStatus.Succeeded }, later)).toMatch(
      /succeeded/,
    );
    expect(notResumable({ ...record, expires_at: now.toISOString() }, operation, later)).toMatch(/expired/);
  });
});
