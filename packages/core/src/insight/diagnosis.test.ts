import { describe, expect, it } from 'vitest';
import { CheckKind, type CheckRecord, CheckStatus, Freshness } from '../checks/model.ts';
import { Phase } from '../compositions/model.ts';
import { OperationKind, OperationStatus } from '../operations/model.ts';
import { composition, now } from '../testing/fixtures.ts';
import { type DiagnosisFacts, DiagnosisState, diagnosisOf, diagnosisState } from './diagnosis.ts';

const check = (status: CheckRecord['status'], generation = 1): CheckRecord => ({
  id: 'chk-1',
  composition_id: 'c-1',
  kind: CheckKind.Routing,
  generation,
  status,
  message: 'these overrides are not proven: service-b (unknown)',
  ran_at: now.toISOString(),
  target: null,
  http_status: 200,
  coverage: {},
  fingerprint: { inputs: {}, hash: 'h' },
});

const fresh = { freshness: Freshness.Fresh, stale_reasons: [] };
const ready: DiagnosisFacts = {
  record: composition(),
  phase: Phase.Ready,
  latest: check(CheckStatus.Passed),
  freshness: fresh,
  fingerprintRead: true,
  unhealthy: {},
  cluster: { name: 'local', problem: null },
};
const codes = (facts: DiagnosisFacts) => diagnosisOf(facts).notes.map((n) => n.code);

describe('the diagnosis state', () => {
  const passed = { status: CheckStatus.Passed, freshness: Freshness.Fresh };

  it.each([
    [Phase.Created, DiagnosisState.Progressing],
    [Phase.Provisioning, DiagnosisState.Progressing],
    [Phase.Updating, DiagnosisState.Progressing],
    [Phase.Failed, DiagnosisState.Failed],
    [Phase.Expired, DiagnosisState.Expired],
    [Phase.Destroyed, DiagnosisState.CleanedUp],
  ])('of a composition %s is %s', (phase, state) => {
    expect(diagnosisState(phase, passed, 'not_started', true)).toBe(state);
  });

  it.each([
    ['in_progress', DiagnosisState.CleaningUp],
    ['complete', DiagnosisState.CleanedUp],
    ['failed', DiagnosisState.CleanupFailed],
    ['unknown', DiagnosisState.Unknown],
  ] as const)('of a destroying composition whose cleanup is %s is %s', (cleanup, state) => {
    expect(diagnosisState(Phase.Destroying, passed, cleanup, true)).toBe(state);
  });

  it.each([
    [CheckStatus.Passed, Freshness.Fresh, true, DiagnosisState.Healthy],
    [CheckStatus.Passed, Freshness.Stale, true, DiagnosisState.Unverified],
    [CheckStatus.Passed, Freshness.Unknown, true, DiagnosisState.Unverified],
    [CheckStatus.Unknown, Freshness.Fresh, true, DiagnosisState.Unverified],
    ['none', null, true, DiagnosisState.Unverified],
    [CheckStatus.Failed, Freshness.Fresh, true, DiagnosisState.Degraded],
    [CheckStatus.Failed, Freshness.Stale, true, DiagnosisState.Degraded],
    [CheckStatus.Passed, Freshness.Fresh, false, DiagnosisState.Unknown],
  ] as const)(
    'of a ready composition with a %s check, %s, cluster readable %s, is %s',
    (status, freshness, readable, state) => {
      expect(diagnosisState(Phase.Ready, { status, freshness }, 'not_started', readable)).toBe(state);
    },
  );
});

describe('the diagnosis', () => {
  it('of a ready composition with a fresh passed check is healthy, with the check as evidence', () => {
    expect(diagnosisOf(ready)).toMatchObject({
      composition_id: 'c-1',
      cluster: 'local',
      state: 'healthy',
      notes: [],
      verification: {
        status: 'passed',
        freshness: 'fresh',
        check_id: 'chk-1',
        generation: 1,
        stale_reasons: [],
      },
      cleanup: { state: 'not_started', remaining: null },
      evidence_id: 'chk-1',
    });
  });

  it('notes a missing check of a ready composition', () => {
    const diagnosis = diagnosisOf({ ...ready, latest: null, freshness: null });
    expect(diagnosis.state).toBe('unverified');
    expect(diagnosis.verification).toEqual({
      status: 'none',
      freshness: null,
      check_id: null,
      generation: null,
      stale_reasons: [],
    });
    expect(diagnosis.notes.map((n) => n.code)).toEqual(['verification_missing']);
    expect(codes({ ...ready, phase: Phase.Provisioning, latest: null, freshness: null })).toEqual([]);
  });

  it('notes stale, older and incomplete proof', () => {
    const stale = { freshness: Freshness.Stale, stale_reasons: ['image:service-c changed'] };
    const diagnosis = diagnosisOf({ ...ready, latest: check(CheckStatus.Unknown, 0), freshness: stale });
    expect(diagnosis.notes).toEqual([
      { code: 'verification_old_generation', message: 'the latest check ran against generation 0' },
      { code: 'verification_stale', message: 'earlier proof no longer holds: image:service-c changed' },
      { code: 'verification_incomplete', message: 'these overrides are not proven: service-b (unknown)' },
    ]);
  });

  it('is unknown with cluster_unreadable when the fingerprint could not be read', () => {
    const unread = { freshness: Freshness.Unknown, stale_reasons: ['the cluster could not be read'] };
    const diagnosis = diagnosisOf({ ...ready, freshness: unread, fingerprintRead: false });
    expect(diagnosis.state).toBe('unknown');
    expect(diagnosis.notes.map((n) => n.code)).toEqual(['cluster_unreadable']);
  });

  it('is unknown, naming the cluster and why, when the composition’s cluster does not answer', () => {
    const problem = {
      code: 'cluster_unreadable',
      message:
        'cluster "local-2" could not be read (connection failed (ECONNREFUSED)); what it holds is unknown',
    };
    const down = { ...ready, cluster: { name: 'local-2', problem } };
    expect(diagnosisOf(down)).toMatchObject({ cluster: 'local-2', state: 'unknown', notes: [problem] });
    expect(diagnosisOf({ ...down, phase: Phase.Provisioning, latest: null }).state).toBe('unknown');
    expect(diagnosisOf({ ...down, phase: Phase.Failed }).state).toBe('failed');
  });

  it('reports the wait of an operation whose cluster does not answer as a blocker', () => {
    const since = now.toISOString();
    const waiting = { cluster: 'local-2', cause: 'connection failed (ECONNREFUSED)', since };
    const record = composition(undefined, {
      phase: Phase.Provisioning,
      latest_operation: { id: 'op-1', kind: OperationKind.Create, status: OperationStatus.Running },
    });
    expect(diagnosisOf({ ...ready, record, phase: Phase.Provisioning, waiting }).blockers).toEqual([
      {
        code: 'cluster_unavailable',
        message: `cluster "local-2" is unavailable since ${since} (connection failed (ECONNREFUSED)); the create waits for it`,
        component: null,
      },
    ]);
  });

  it('is unknown on a cluster the installation does not know, saying so', () => {
    const problem = {
      code: 'unknown_cluster',
      message: 'cluster "gone" is not one of this installation\'s clusters ("local")',
    };
    expect(diagnosisOf({ ...ready, cluster: { name: 'gone', problem } })).toMatchObject({
      state: 'unknown',
      notes: [problem],
    });
  });

  it('notes forks the active operation saw unhealthy', () => {
    const unhealthy = { 'service-b': { reason: 'ErrImagePull', since: now.toISOString() } };
    expect(diagnosisOf({ ...ready, phase: Phase.Updating, unhealthy }).notes).toEqual([
      { code: 'fork_unhealthy', message: `fork of service-b is in ErrImagePull since ${now.toISOString()}` },
    ]);
  });

  it('notes that the previous generation keeps serving after a failed update', () => {
    const latest_operation = { id: 'op-2', kind: OperationKind.Update, status: OperationStatus.Failed };
    const record = composition(undefined, { phase: Phase.Failed, generation: 2, latest_operation });
    const diagnosis = diagnosisOf({ ...ready, record, phase: Phase.Failed });
    expect(diagnosis.state).toBe('failed');
    expect(diagnosis.notes).toContainEqual({
      code: 'previous_generation_serving',
      message: 'the rollout of generation 2 failed; generation 1 keeps serving',
    });
    const created = { ...latest_operation, kind: OperationKind.Create };
    const failedCreate = composition(undefined, {
      phase: Phase.Failed,
      observed_generation: 0,
      latest_operation: created,
    });
    expect(
      codes({ ...ready, record: failedCreate, phase: Phase.Failed, latest: null, freshness: null }),
    ).toEqual([]);
  });

  describe('while torn down', () => {
    const destroying: DiagnosisFacts = {
      ...ready,
      record: composition(undefined, { phase: Phase.Destroying, active_operation: 'op-3' }),
      phase: Phase.Destroying,
      freshness: null,
      remaining: ['Deployment/service-b-c-1'],
    };

    it('reads every check as stale and reports what is left', () => {
      expect(diagnosisOf(destroying)).toMatchObject({
        state: 'cleaning_up',
        notes: [],
        verification: {
          status: 'passed',
          freshness: 'stale',
          stale_reasons: ['the composition is destroying'],
        },
        cleanup: { state: 'in_progress', remaining: ['Deployment/service-b-c-1'] },
      });
    });

    it('is cleaned up once nothing is left', () => {
      expect(diagnosisOf({ ...destroying, remaining: [] })).toMatchObject({
        state: 'cleaned_up',
        cleanup: { state: 'complete', remaining: [] },
      });
    });

    it('is cleanup_failed when the destroy failed with objects left', () => {
      const latest_operation = { id: 'op-3', kind: OperationKind.Destroy, status: OperationStatus.Failed };
      const record = { ...destroying.record, active_operation: null, latest_operation };
      expect(diagnosisOf({ ...destroying, record }).state).toBe('cleanup_failed');
    });

    it('is unknown with cluster_unreadable when what is left cannot be listed', () => {
      const diagnosis = diagnosisOf({ ...destroying, remaining: null });
      expect(diagnosis).toMatchObject({ state: 'unknown', cleanup: { state: 'unknown', remaining: null } });
      expect(diagnosis.notes.map((n) => n.code)).toEqual(['cluster_unreadable']);
    });
  });
});
