import { describe, expect, it } from 'vitest';
import { Phase } from '../compositions/model.ts';
import { previewRecord } from '../testing/fixtures.ts';
import { converge, type Observation, Unwanted } from './converge.ts';
import { type PreviewPolicy, PreviewState, type PullRequest } from './model.ts';

const sha1 = '1'.repeat(40);
const sha2 = '2'.repeat(40);

const policy: PreviewPolicy = {
  project: 'demo',
  repository: 'demo-org/service-b',
  enabled: true,
  trigger_label: 'preview',
  baseline: 'staging',
  ttl: '8h',
  components: ['service-b'],
  fork_pull_requests: false,
  build_selection: 'head_sha',
  group_by: 'none',
  feedback: 'comment',
  revision: 1,
  updated_at: '2026-01-01T00:00:00.000Z',
  updated_by: 'admin',
};

const pr = (changes: Partial<PullRequest> = {}): PullRequest => ({
  repository: 'demo-org/service-b',
  number: 7,
  open: true,
  labels: ['preview'],
  head_sha: sha1,
  head_ref: 'feature',
  fork: false,
  ...changes,
});

const preview = previewRecord;

const observe = (changes: Partial<Observation>): Observation => ({
  policy,
  pr: pr(),
  suspended: false,
  preview: null,
  builds: {},
  composition: null,
  ...changes,
});

const running = (phase: Phase, build = 'b-1') => ({ phase, builds: { 'service-b': build } });

describe('converge', () => {
  it('a labelled pull request whose build is not published waits, without an older build', () => {
    expect(converge(observe({}))).toEqual({
      state: PreviewState.WaitingForBuild,
      action: { kind: 'none' },
      unwanted: null,
    });
  });

  it('creates the composition once the head commit build is published', () => {
    const result = converge(observe({ builds: { 'service-b': 'b-1' } }));
    expect(result.state).toBe(PreviewState.Deploying);
    expect(result.action).toEqual({ kind: 'create', builds: { 'service-b': 'b-1' } });
  });

  it('waits for every component the policy names', () => {
    const two = { ...policy, components: ['service-a', 'service-b'] };
    expect(converge(observe({ policy: two, builds: { 'service-b': 'b-1' } })).action.kind).toBe('none');
  });

  it('a push before its build keeps the running build and waits; the build then updates it', () => {
    const pushed = observe({
      pr: pr({ head_sha: sha2 }),
      preview: preview(),
      composition: running(Phase.Ready),
    });
    expect(converge(pushed)).toMatchObject({ state: PreviewState.WaitingForBuild, action: { kind: 'none' } });
    const built = { ...pushed, builds: { 'service-b': 'b-2' } };
    expect(converge(built)).toMatchObject({
      state: PreviewState.Deploying,
      action: { kind: 'update', builds: { 'service-b': 'b-2' } },
    });
  });

  it('builds arriving out of order never move the preview to the older commit', () => {
    // The head is sha2; only the build of sha1 arrives late: the observation holds builds of the head only.
    const late = observe({
      pr: pr({ head_sha: sha2 }),
      preview: preview(),
      composition: running(Phase.Ready, 'b-2'),
    });
    expect(converge({ ...late, builds: { 'service-b': 'b-2' } }).action.kind).toBe('none');
    expect(converge({ ...late, builds: {} }).action.kind).toBe('none');
  });

  it('a rollout under way is polled, not interrupted', () => {
    const result = converge(observe({ preview: preview(), composition: running(Phase.Provisioning) }));
    expect(result).toMatchObject({ state: PreviewState.Deploying, action: { kind: 'poll' } });
  });

  it('reports ready and failed compositions running the head build', () => {
    const ready = observe({
      preview: preview(),
      builds: { 'service-b': 'b-1' },
      composition: running(Phase.Ready),
    });
    expect(converge(ready)).toMatchObject({ state: PreviewState.Ready, action: { kind: 'none' } });
    const failed = { ...ready, composition: running(Phase.Failed) };
    expect(converge(failed)).toMatchObject({ state: PreviewState.Failed, action: { kind: 'none' } });
  });

  it('unlabelling during the rollout destroys the composition', () => {
    const result = converge(
      observe({ pr: pr({ labels: [] }), preview: preview(), composition: running(Phase.Provisioning) }),
    );
    expect(result).toEqual({
      state: PreviewState.Stopping,
      action: { kind: 'destroy' },
      unwanted: Unwanted.LabelMissing,
    });
  });

  it('a pull request closed before its preview existed leaves nothing behind', () => {
    expect(converge(observe({ pr: pr({ open: false }) }))).toEqual({
      state: null,
      action: { kind: 'none' },
      unwanted: Unwanted.PullRequestClosed,
    });
    const waiting = preview({
      state: PreviewState.WaitingForBuild,
      composition_id: null,
      deployed_sha: null,
    });
    expect(converge(observe({ pr: pr({ open: false }), preview: waiting })).state).toBe(PreviewState.Stopped);
  });

  it('a stopped preview is finished once its composition is destroyed', () => {
    const stopping = preview({ state: PreviewState.Stopping });
    const gone = observe({
      pr: pr({ labels: [] }),
      preview: stopping,
      composition: running(Phase.Destroying),
    });
    expect(converge(gone)).toMatchObject({ state: PreviewState.Stopping, action: { kind: 'poll' } });
    expect(converge({ ...gone, composition: running(Phase.Destroyed) }).state).toBe(PreviewState.Stopped);
  });

  it('a user stop suppresses automation while the label stays', () => {
    const stopped = preview({ suppressed: true, state: PreviewState.Stopped });
    const result = converge(
      observe({ preview: stopped, builds: { 'service-b': 'b-1' }, composition: running(Phase.Destroyed) }),
    );
    expect(result).toMatchObject({
      state: PreviewState.Stopped,
      action: { kind: 'none' },
      unwanted: Unwanted.StoppedByUser,
    });
  });

  it('a restart destroys the old composition, then creates a fresh one', () => {
    const restarting = preview({ restart_pending: true });
    const observed = observe({
      preview: restarting,
      builds: { 'service-b': 'b-1' },
      composition: running(Phase.Ready),
    });
    expect(converge(observed)).toMatchObject({ state: PreviewState.Restarting, action: { kind: 'destroy' } });
    const destroying = {
      ...observed,
      preview: preview({ restart_pending: true, state: PreviewState.Restarting }),
    };
    expect(converge({ ...destroying, composition: running(Phase.Destroying) }).action.kind).toBe('poll');
    expect(converge({ ...destroying, composition: running(Phase.Destroyed) }).action).toEqual({
      kind: 'create',
      builds: { 'service-b': 'b-1' },
    });
  });

  it('an expired preview stays down until a push or a restart', () => {
    const expired = observe({
      preview: preview(),
      builds: { 'service-b': 'b-1' },
      composition: running(Phase.Destroyed),
    });
    expect(converge(expired)).toMatchObject({ state: PreviewState.Expired, action: { kind: 'none' } });
    const pushed = { ...expired, pr: pr({ head_sha: sha2 }), builds: { 'service-b': 'b-2' } };
    expect(converge(pushed).action.kind).toBe('create');
  });

  it('relabelling a stopped preview starts it again', () => {
    const stopped = preview({ state: PreviewState.Stopped, deployed_sha: null });
    const result = converge(
      observe({ preview: stopped, builds: { 'service-b': 'b-1' }, composition: running(Phase.Destroyed) }),
    );
    expect(result.action.kind).toBe('create');
  });

  it('fork pull requests get no preview unless the policy allows them', () => {
    const fork = observe({ pr: pr({ fork: true }), builds: { 'service-b': 'b-1' } });
    expect(converge(fork).unwanted).toBe(Unwanted.ForkNotAllowed);
    expect(converge({ ...fork, policy: { ...policy, fork_pull_requests: true } }).action.kind).toBe('create');
  });

  it('a disabled policy or an uninstalled app stops running previews', () => {
    const live = observe({ preview: preview(), composition: running(Phase.Ready) });
    expect(converge({ ...live, policy: { ...policy, enabled: false } }).action.kind).toBe('destroy');
    expect(converge({ ...live, pr: null }).unwanted).toBe(Unwanted.PullRequestGone);
  });

  it('a suspended installation stops running previews and starts none; unsuspended, they come back', () => {
    // Suspended, the forge answers nothing about the pull request: the suspension is the reason.
    const live = observe({
      preview: preview(),
      pr: null,
      suspended: true,
      composition: running(Phase.Ready),
    });
    expect(converge(live)).toMatchObject({
      state: PreviewState.Stopping,
      action: { kind: 'destroy' },
      unwanted: Unwanted.InstallationSuspended,
    });
    const gone = {
      ...live,
      preview: preview({ state: PreviewState.Stopping }),
      composition: running(Phase.Destroyed),
    };
    expect(converge(gone)).toMatchObject({
      state: PreviewState.Stopped,
      unwanted: Unwanted.InstallationSuspended,
    });
    expect(converge({ ...live, preview: null, composition: null }).state).toBeNull();
    const back = { ...gone, pr: pr(), suspended: false, builds: { 'service-b': 'b-1' } };
    expect(converge({ ...back, preview: preview({ state: PreviewState.Stopped }) }).action.kind).toBe(
      'create',
    );
  });
});
