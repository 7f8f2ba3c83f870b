import { describe, expect, it } from 'vitest';
import { Phase } from '../compositions/model.ts';
import {
  type CandidateObservation,
  type ChangeObservation,
  ChangeRefusalCode,
  convergeChange,
} from './change-converge.ts';
import { blockersOfChange, type ChangeKey, changeId, groupOf } from './change-model.ts';
import { Unwanted } from './converge.ts';
import { FeedbackMode, GroupBy, type PreviewPolicy, PreviewState, type PullRequest } from './model.ts';

const policyOf = (repository: string, components: string[], changes: Partial<PreviewPolicy> = {}) => ({
  project: 'demo',
  repository,
  enabled: true,
  trigger_label: 'preview',
  baseline: 'staging',
  ttl: '8h',
  components,
  fork_pull_requests: false,
  build_selection: 'head_sha' as const,
  group_by: GroupBy.Branch,
  feedback: FeedbackMode.Comment,
  revision: 1,
  updated_at: '2026-01-01T00:00:00.000Z',
  updated_by: 'admin',
  ...changes,
});

const pullRequest = (
  repository: string,
  number: number,
  changes: Partial<PullRequest> = {},
): PullRequest => ({
  repository,
  number,
  open: true,
  labels: ['preview'],
  head_sha: '1'.repeat(40),
  head_ref: 'feature-x',
  fork: false,
  ...changes,
});

const branch: ChangeKey = { kind: 'branch', name: 'feature-x' };

/** A pull request of `demo-org/<component>` overriding its component, with its head commit's build. */
function candidate(
  component: string,
  build: string | null,
  changes: { pr?: Partial<PullRequest>; policy?: Partial<PreviewPolicy>; number?: number } = {},
): CandidateObservation {
  const repository = `demo-org/${component}`;
  const number = changes.number ?? 7;
  return {
    repository,
    number,
    policy: policyOf(repository, [component], changes.policy),
    pr: pullRequest(repository, number, changes.pr),
    suspended: false,
    builds: build === null ? {} : { [component]: build },
  };
}

const observe = (candidates: CandidateObservation[], changes: Partial<ChangeObservation> = {}) =>
  convergeChange({ key: branch, candidates, recorded: null, composition: null, ...changes });

const recorded = (state: PreviewState, composed: Record<string, string>) => ({
  state,
  suppressed: false,
  restart_pending: false,
  composed,
});

const ready = (builds: Record<string, string>) => ({
  recorded: recorded(PreviewState.Ready, builds),
  composition: { phase: Phase.Ready, builds },
});

describe('which change a pull request belongs to', () => {
  const policy = policyOf('demo-org/web', ['web']);

  it('none unless its policy groups by branch (off by default) or it carries a group label', () => {
    expect(groupOf({ ...policy, group_by: GroupBy.None }, pullRequest('demo-org/web', 1))).toBeNull();
    expect(groupOf(policy, pullRequest('demo-org/web', 1))).toEqual(branch);
    const labelled = pullRequest('demo-org/web', 1, { labels: ['preview', 'preview-group:checkout'] });
    expect(groupOf({ ...policy, group_by: GroupBy.None }, labelled)).toEqual({
      kind: 'label',
      name: 'checkout',
    });
    expect(groupOf(policy, labelled)).toEqual({ kind: 'label', name: 'checkout' });
  });

  it('a fork joins only by label, and a malformed group label is ignored', () => {
    expect(groupOf(policy, pullRequest('demo-org/web', 1, { fork: true }))).toBeNull();
    const odd = pullRequest('demo-org/web', 1, { labels: ['preview-group:a b', 'preview-group:'] });
    expect(groupOf(policy, odd)).toEqual(branch);
  });

  it('one change per installation account and key, whatever the repository or its case', () => {
    expect(changeId('demo-org/web', branch)).toBe(changeId('Demo-Org/api', branch));
    expect(changeId('demo-org/web', branch)).toMatch(/^ch-[a-f0-9]{20}$/);
    expect(changeId('other-org/web', branch)).not.toBe(changeId('demo-org/web', branch));
    expect(changeId('demo-org/web', { kind: 'label', name: 'feature-x' })).not.toBe(
      changeId('demo-org/web', branch),
    );
  });
});

describe('convergeChange', () => {
  it('forms one composition overriding each pull request component with its build', () => {
    const decided = observe([candidate('web', 'w-1'), candidate('api', 'a-1', { number: 3 })]);
    expect(decided.state).toBe(PreviewState.Deploying);
    expect(decided.action).toEqual({ kind: 'create', builds: { web: 'w-1', api: 'a-1' } });
    expect(decided.basis).toEqual({ project: 'demo', baseline: 'staging', ttl: '8h' });
    expect(decided.members.map((m) => [m.repository, m.number, m.components, m.state])).toEqual([
      ['demo-org/api', 3, ['api'], PreviewState.Deploying],
      ['demo-org/web', 7, ['web'], PreviewState.Deploying],
    ]);
  });

  it('takes the longest TTL of its pull requests policies', () => {
    const decided = observe([candidate('web', 'w-1'), candidate('api', 'a-1', { policy: { ttl: '1d' } })]);
    expect(decided.basis?.ttl).toBe('1d');
  });

  it('a push updates only the pushed component; the others keep their builds', () => {
    const decided = observe(
      [candidate('web', 'w-2'), candidate('api', 'a-1')],
      ready({ web: 'w-1', api: 'a-1' }),
    );
    expect(decided.action).toEqual({ kind: 'update', builds: { web: 'w-2', api: 'a-1' } });
  });

  it('a pushed pull request waits for its build, naming the component, while the preview keeps what it runs', () => {
    const decided = observe(
      [candidate('web', null), candidate('api', 'a-1')],
      ready({ web: 'w-1', api: 'a-1' }),
    );
    expect(decided.action).toEqual({ kind: 'none' });
    expect(decided.state).toBe(PreviewState.Ready);
    const web = decided.members.find((m) => m.repository === 'demo-org/web');
    expect(web).toMatchObject({ state: PreviewState.WaitingForBuild, waiting: ['web'] });
    expect(decided.members.find((m) => m.repository === 'demo-org/api')?.state).toBe(PreviewState.Ready);
  });

  it('a joining pull request adds its override once its build is published', () => {
    const running = ready({ web: 'w-1' });
    const joiner = candidate('api', null);
    expect(observe([candidate('web', 'w-1'), joiner], running).action).toEqual({ kind: 'none' });
    expect(observe([candidate('web', 'w-1'), candidate('api', 'a-1')], running).action).toEqual({
      kind: 'update',
      builds: { web: 'w-1', api: 'a-1' },
    });
  });

  it('closing or unlabelling one removes its override; its component returns to the baseline', () => {
    const running = ready({ web: 'w-1', api: 'a-1' });
    const closed = candidate('api', 'a-1', { pr: { open: false } });
    const unlabelled = candidate('api', 'a-1', { pr: { labels: [] } });
    const regrouped = candidate('api', 'a-1', { pr: { labels: ['preview', 'preview-group:other'] } });
    for (const gone of [closed, unlabelled, regrouped]) {
      const decided = observe([candidate('web', 'w-1'), gone], running);
      expect(decided.action).toEqual({ kind: 'update', builds: { web: 'w-1' } });
      expect(decided.members.map((m) => m.repository)).toEqual(['demo-org/web']);
    }
  });

  it('one leaving takes its override with it even while the others wait for their builds', () => {
    const closed = candidate('api', 'a-1', { pr: { open: false } });
    const decided = observe([candidate('web', null), closed], ready({ api: 'a-1' }));
    expect(decided.action).toEqual({ kind: 'update', builds: {} });
    expect(decided.members.map((m) => [m.repository, m.state, m.waiting])).toEqual([
      ['demo-org/web', PreviewState.WaitingForBuild, ['web']],
    ]);
  });

  it('a restart never brings back an older build of a pull request still waiting', () => {
    const restarting = observe([candidate('web', null), candidate('api', 'a-2')], {
      recorded: { ...recorded(PreviewState.Restarting, { web: 'w-1', api: 'a-1' }), restart_pending: true },
      composition: { phase: Phase.Destroyed, builds: { web: 'w-1', api: 'a-1' } },
    });
    expect(restarting.action).toEqual({ kind: 'create', builds: { api: 'a-2' } });
  });

  it('the last one closing destroys the composition, then the change is stopped', () => {
    const closed = [candidate('web', 'w-1', { pr: { open: false } })];
    const destroying = observe(closed, ready({ web: 'w-1' }));
    expect(destroying).toMatchObject({
      state: PreviewState.Stopping,
      action: { kind: 'destroy' },
      members: [],
    });
    expect(destroying.unwanted).toBe(Unwanted.PullRequestClosed);
    const gone = observe(closed, {
      recorded: recorded(PreviewState.Stopping, { web: 'w-1' }),
      composition: { phase: Phase.Destroyed, builds: {} },
    });
    expect(gone.state).toBe(PreviewState.Stopped);
    expect(gone.action).toEqual({ kind: 'none' });
  });

  it('a change that never composed leaves nothing behind when its pull requests close', () => {
    expect(observe([candidate('web', null, { pr: { open: false } })]).state).toBeNull();
  });

  it('a user stop destroys the shared composition; a restart makes a fresh one', () => {
    const stopped = observe([candidate('web', 'w-1')], {
      ...ready({ web: 'w-1' }),
      recorded: { ...recorded(PreviewState.Ready, { web: 'w-1' }), suppressed: true },
    });
    expect(stopped).toMatchObject({ state: PreviewState.Stopping, action: { kind: 'destroy' } });
    const restarting = observe([candidate('web', 'w-1')], {
      ...ready({ web: 'w-1' }),
      recorded: { ...recorded(PreviewState.Ready, { web: 'w-1' }), restart_pending: true },
    });
    expect(restarting).toMatchObject({ state: PreviewState.Restarting, action: { kind: 'destroy' } });
  });

  it('looks again while the composition rolls out, and stays expired past its TTL until a push', () => {
    const rolling = observe([candidate('web', 'w-1')], {
      recorded: recorded(PreviewState.Deploying, { web: 'w-1' }),
      composition: { phase: Phase.Updating, builds: { web: 'w-1' } },
    });
    expect(rolling.action).toEqual({ kind: 'poll' });
    const expired = {
      recorded: recorded(PreviewState.Ready, { web: 'w-1' }),
      composition: { phase: Phase.Destroyed, builds: {} },
    };
    expect(observe([candidate('web', 'w-1')], expired).state).toBe(PreviewState.Expired);
    expect(observe([candidate('web', 'w-2')], expired).action).toEqual({
      kind: 'create',
      builds: { web: 'w-2' },
    });
  });

  it('counts each pull request once, however often it is named', () => {
    const web = candidate('web', 'w-1');
    expect(observe([web, { ...web, repository: 'Demo-Org/web' }]).members).toHaveLength(1);
  });
});

describe('refusals', () => {
  const refused = (candidates: CandidateObservation[], changes: Partial<ChangeObservation> = {}) => {
    const decided = observe(candidates, changes);
    expect(decided.state).toBe(PreviewState.Refused);
    expect(decided.action).toEqual({ kind: 'none' });
    expect(decided.members.map((m) => m.state)).toEqual(candidates.map(() => PreviewState.Refused));
    return decided.refusal;
  };

  it('two pull requests overriding one component, naming it and both', () => {
    const second = { ...candidate('web', 'w-2', { number: 9 }), repository: 'demo-org/web-next' };
    const refusal = refused([candidate('web', 'w-1'), second]);
    expect(refusal?.code).toBe(ChangeRefusalCode.ComponentConflict);
    expect(refusal?.message).toBe(
      'component web is overridden by both demo-org/web#7 and demo-org/web-next#9',
    );
  });

  it('more than three overrides', () => {
    const four = ['a', 'b', 'c', 'd'].map((component) => candidate(component, `${component}-1`));
    expect(refused(four)?.code).toBe(ChangeRefusalCode.TooManyOverrides);
    expect(observe(four.slice(0, 3)).action.kind).toBe('create');
  });

  it('repositories of different projects or baselines', () => {
    const otherProject = candidate('api', 'a-1', { policy: { project: 'shop' } });
    expect(refused([candidate('web', 'w-1'), otherProject])?.code).toBe(ChangeRefusalCode.ProjectsDiffer);
    const otherBaseline = candidate('api', 'a-1', { policy: { baseline: 'qa' } });
    expect(refused([candidate('web', 'w-1'), otherBaseline])?.code).toBe(ChangeRefusalCode.BaselinesDiffer);
  });

  it('a running composition is left as it is until the pull requests are fixed', () => {
    const four = ['a', 'b', 'c', 'd'].map((component) => candidate(component, `${component}-2`));
    refused(four, ready({ a: 'a-1', b: 'b-1', c: 'c-1' }));
    const fixed = observe(four.slice(0, 3), ready({ a: 'a-1', b: 'b-1', c: 'c-1' }));
    expect(fixed.action).toEqual({ kind: 'update', builds: { a: 'a-2', b: 'b-2', c: 'c-2' } });
  });
});

describe("a failed change's blockers", () => {
  const members = [
    { repository: 'demo-org/service-a', number: 3, components: ['service-a'] },
    { repository: 'demo-org/service-b', number: 7, components: ['service-b', 'service-d'] },
  ];

  it('name the component and the pull request whose build it runs, or the baseline', () => {
    const told = blockersOfChange(
      [
        { code: 'image_pull_failed', message: 'image x cannot be pulled', component: 'service-d' },
        { code: 'crash_loop', message: 'keeps crashing', component: 'service-c' },
        { code: 'step_failed', message: 'the apply failed', component: null },
      ],
      members,
    );
    expect(told.map((b) => b.message)).toEqual([
      'service-d (the build of demo-org/service-b#7): image x cannot be pulled',
      'service-c (the baseline): keeps crashing',
      'the apply failed',
    ]);
    expect(told.map((b) => [b.code, b.component])).toEqual([
      ['image_pull_failed', 'service-d'],
      ['crash_loop', 'service-c'],
      ['step_failed', null],
    ]);
  });
});
