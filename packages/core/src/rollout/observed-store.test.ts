import { describe, expect, it } from 'vitest';
import { type CompositionEvent, EventType } from '../compositions/model.ts';
import { OperationKind } from '../operations/model.ts';
import { type MetricsSink, ServiceMetric } from '../service-metrics.ts';
import { composition, withOperation } from '../testing/fixtures.ts';
import { observedCompositionStore } from './observed-store.ts';
import type { RolloutStore } from './ports.ts';

function recordingSink() {
  const seen: [string, number][] = [];
  const sink: MetricsSink = {
    count: (metric) => seen.push([metric, 1]),
    milliseconds: (metric, value) => seen.push([metric, value]),
  };
  return { sink, seen };
}

/** Only the writes the decorator wraps; whether a conditional write lands is the test's choice. */
function storeAnswering(landed: boolean): RolloutStore {
  return {
    create: async () => {},
    replace: async () => landed,
    commit: async () => landed,
    appendEvents: async () => {},
  } as Partial<RolloutStore> as RolloutStore;
}

const { composition: record, operation } = withOperation(composition(), OperationKind.Create);
const event = (type: EventType, at: string): CompositionEvent => ({
  id: `e-${type}`,
  composition_id: record.id,
  type,
  at,
  actor: { kind: 'system', subject: 'worker' },
  operation_id: operation.id,
  generation: 1,
  message: type,
  data: {},
});

describe('observedCompositionStore', () => {
  it('counts an accepted composition once it is written', async () => {
    const { sink, seen } = recordingSink();
    const store = observedCompositionStore(storeAnswering(true), sink);
    await store.create({
      namespace: {
        cluster: 'local',
        namespace: record.namespace,
        project: record.project,
        baseline: record.baseline,
      },
      composition: record,
      operation,
      events: [event(EventType.Accepted, operation.created_at)],
    });
    expect(seen).toEqual([[ServiceMetric.CompositionsAccepted, 1]]);
  });

  it("reports a ready composition with its rollout's duration since the operation was created", async () => {
    const { sink, seen } = recordingSink();
    const store = observedCompositionStore(storeAnswering(true), sink);
    const readyAt = new Date(Date.parse(operation.created_at) + 4_250).toISOString();
    await store.commit({
      operation: { record: operation, expected_lock_version: 1 },
      events: [event(EventType.StepFinished, readyAt), event(EventType.Ready, readyAt)],
    });
    expect(seen).toEqual([
      [ServiceMetric.CompositionsReady, 1],
      [ServiceMetric.RolloutDuration, 4_250],
    ]);
  });

  it('reports nothing of a conditional write that lost', async () => {
    const { sink, seen } = recordingSink();
    const store = observedCompositionStore(storeAnswering(false), sink);
    expect(await store.commit({ events: [event(EventType.Failed, operation.created_at)] })).toBe(false);
    expect(
      await store.replace({
        composition: record,
        expected_lock_version: 1,
        events: [event(EventType.Failed, operation.created_at)],
      }),
    ).toBe(false);
    expect(seen).toEqual([]);
  });

  it('counts failures written as events alone', async () => {
    const { sink, seen } = recordingSink();
    await observedCompositionStore(storeAnswering(true), sink).appendEvents([
      event(EventType.Failed, operation.created_at),
    ]);
    expect(seen).toEqual([[ServiceMetric.CompositionsFailed, 1]]);
  });
});
