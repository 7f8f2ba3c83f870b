/** The forge store on DynamoDB Local: the conditional writes and index queries forge previews rely on. */
import { Forge } from '@svc/core';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let store: Forge.ForgeStore;
useTestStack({ forge: false, seed: false }, ({ stack }) => {
  store = stack.stores.forgeStore;
});

const at = '2030-01-01T00:00:00.000Z';
const sha = (c: string) => c.repeat(40);

const preview = (changes: Partial<Forge.PreviewRecord>): Forge.PreviewRecord => ({
  id: 'pr-store',
  project: 'demo',
  repository: 'Demo-Org/Service-B',
  number: 3,
  state: 'waiting_for_build',
  head_sha: sha('a'),
  head_ref: 'feature',
  fork: false,
  builds: {},
  deployed_sha: null,
  composition_id: null,
  change_id: null,
  url: null,
  expires_at: null,
  last_error: null,
  suppressed: false,
  restart_pending: false,
  feedback: Forge.noFeedback,
  poll_at: null,
  created_at: at,
  updated_at: at,
  lock_version: 1,
  ...changes,
});

const delivery = (id: string, changes: Partial<Forge.Delivery> = {}): Forge.Delivery => ({
  id,
  event: 'pull_request',
  action: 'labeled',
  repository: 'demo-org/service-b',
  number: 3,
  repositories: [],
  installation: 7,
  account: null,
  state: 'received',
  received_at: at,
  due_at: at,
  finished_at: null,
  attempts: 0,
  error: null,
  outcome: [],
  ...changes,
});

describe('the forge store', () => {
  it('writes a preview only over the version read, and finds it waiting for exactly its head commit', async () => {
    expect(await store.putPreview(preview({}), 0)).toBe(true);
    expect(await store.putPreview(preview({}), 0)).toBe(false);
    expect((await store.waitingFor('demo-org/service-b', sha('a'))).map((p) => p.id)).toEqual(['pr-store']);
    expect(await store.waitingFor('demo-org/service-b', sha('b'))).toEqual([]);

    const pushed = preview({ head_sha: sha('b'), lock_version: 2 });
    expect(await store.putPreview(pushed, 1)).toBe(true);
    expect(await store.waitingFor('demo-org/service-b', sha('a'))).toEqual([]);
    expect((await store.waitingFor('demo-org/service-b', sha('b'))).map((p) => p.id)).toEqual(['pr-store']);

    expect(await store.putPreview(preview({ state: 'deploying', lock_version: 3 }), 2)).toBe(true);
    expect(await store.waitingFor('demo-org/service-b', sha('b'))).toEqual([]);
    expect((await store.activePreviewsOf('demo-org/service-b')).map((p) => p.state)).toEqual(['deploying']);
    expect(await store.putPreview(preview({ state: 'stopped', lock_version: 4 }), 3)).toBe(true);
    expect(await store.activePreviewsOf('DEMO-ORG/service-b')).toEqual([]);
    expect((await store.listPreviews({ project: 'demo' }, { limit: 10, after: null })).items).toHaveLength(1);
    expect((await store.listPreviews({ project: 'other' }, { limit: 10, after: null })).items).toEqual([]);
  });

  it('writes a change only over the version read, its pull requests in the one item', async () => {
    const change: Forge.ChangeRecord = {
      id: 'ch-00000000000000000001',
      account: 'demo-org',
      key: { kind: 'label', name: 'checkout' },
      project: null,
      members: [{ repository: 'demo-org/service-b', number: 3, components: ['service-b'] }],
      state: 'waiting_for_build',
      composition_id: null,
      composed: {},
      url: null,
      expires_at: null,
      refusal: null,
      suppressed: false,
      restart_pending: false,
      poll_at: null,
      created_at: at,
      updated_at: at,
      lock_version: 1,
    };
    expect(await store.getChange(change.id)).toBeNull();
    expect(await store.putChange(change, 0)).toBe(true);
    expect(await store.putChange(change, 0)).toBe(false);
    const joined = {
      ...change,
      members: [...change.members, { repository: 'demo-org/web', number: 5, components: ['web'] }],
      lock_version: 2,
    };
    expect(await store.putChange({ ...joined, state: 'refused' }, 2)).toBe(false);
    expect(await store.putChange(joined, 1)).toBe(true);
    expect(await store.getChange(change.id)).toEqual(joined);
  });

  it('stores a delivery once, keeps it due until it is finished, and counts what is unprocessed', async () => {
    expect(await store.putDelivery(delivery('d-1'))).toBe(true);
    expect(await store.putDelivery(delivery('d-1', { action: 'closed' }))).toBe(false);
    expect((await store.getDelivery('d-1'))?.action).toBe('labeled');
    expect(await store.putDelivery(delivery('d-2', { due_at: '2030-01-01T00:10:00.000Z' }))).toBe(true);

    const now = new Date('2030-01-01T00:05:00.000Z');
    expect((await store.dueDeliveries(now, 10)).map((d) => d.id)).toEqual(['d-1']);
    expect(await store.unprocessed(10)).toEqual({ count: 2, oldest: at });

    const outcome = [{ project: 'demo', preview_id: null, state: null, unwanted: 'label_missing' }];
    await store.updateDelivery(
      delivery('d-1', { state: 'processed', due_at: null, finished_at: at, outcome }),
    );
    expect((await store.getDelivery('d-1'))?.outcome).toEqual(outcome);
    expect(await store.dueDeliveries(now, 10)).toEqual([]);
    expect((await store.unprocessed(10)).count).toBe(1);
  });

  it('lists deliveries newest first, by the repositories they concern, in pages', async () => {
    const list = (repositories: string[] | null, after: string | null = null) =>
      store.listDeliveries({ repositories }, { limit: 2, after });
    await store.putDelivery(
      delivery('l-1', { repository: 'Acme/One', received_at: '2030-01-02T00:00:01.000Z' }),
    );
    await store.putDelivery(
      delivery('l-2', {
        event: 'installation_repositories',
        repository: null,
        number: null,
        repositories: ['acme/two', 'Acme/One'],
        received_at: '2030-01-02T00:00:02.000Z',
      }),
    );
    await store.putDelivery(
      delivery('l-3', { repository: 'acme/two', received_at: '2030-01-02T00:00:03.000Z' }),
    );
    const first = await list(['acme/one']);
    expect(first.items.map((d) => d.id)).toEqual(['l-2', 'l-1']);
    expect(first.items[1]).toEqual(
      delivery('l-1', { repository: 'Acme/One', received_at: '2030-01-02T00:00:01.000Z' }),
    );
    expect((await list(['acme/two'])).items.map((d) => d.id)).toEqual(['l-3', 'l-2']);
    expect((await list([])).items).toEqual([]);
    const newest = await list(null);
    expect(newest.items.map((d) => d.id)).toEqual(['l-3', 'l-2']);
    const next = await list(null, newest.next_cursor);
    expect(next.items.map((d) => d.id)).toContain('l-1');
    // A cursor is sealed to its filter: another filter's cursor is refused before any read.
    await expect(list(['acme/two'], newest.next_cursor)).rejects.toMatchObject({ code: 'invalid_query' });
  });

  it('records suspended installations by account, case-insensitively', async () => {
    const suspended = { account: 'Acme', installation: 42, suspended_at: at };
    await store.putSuspension(suspended);
    expect(await store.getSuspension('acme')).toEqual(suspended);
    expect(await store.suspensions()).toEqual([suspended]);
    await store.deleteSuspension('ACME');
    expect(await store.getSuspension('Acme')).toBeNull();
    expect(await store.suspensions()).toEqual([]);
  });

  it('keeps policies per project and repository, guarded by their revision, each repository held by one project', async () => {
    const policy: Forge.PreviewPolicy = {
      project: 'demo',
      repository: 'demo-org/service-b',
      enabled: true,
      trigger_label: 'preview',
      baseline: 'staging',
      ttl: '2h',
      components: ['service-b'],
      fork_pull_requests: false,
      build_selection: 'head_sha',
      group_by: 'none',
      feedback: 'comment',
      revision: 1,
      updated_at: at,
      updated_by: 'admin',
    };
    expect(await store.putPolicy(policy, 0)).toEqual({ saved: true });
    expect(await store.putPolicy({ ...policy, revision: 2 }, 0)).toEqual({ saved: false, owner: null });
    expect(await store.putPolicy({ ...policy, project: 'other' }, 0)).toEqual({
      saved: false,
      owner: 'demo',
    });
    expect(await store.repositoryOwner('Demo-Org/Service-B')).toBe('demo');
    expect(await store.getPolicy('demo', 'Demo-Org/Service-B')).toEqual(policy);
    expect((await store.policiesOf('demo-org/service-b')).map((p) => p.project)).toEqual(['demo']);
    expect(await store.putPolicy({ ...policy, repository: 'demo-org/service-c' }, 0)).toEqual({
      saved: true,
    });
    expect((await store.listPolicies({ limit: 1, after: null })).next_cursor).not.toBeNull();

    expect(await store.deletePolicy('other', 'demo-org/service-b')).toBe(false);
    expect(await store.deletePolicy('demo', 'demo-org/service-b')).toBe(true);
    expect(await store.repositoryOwner('demo-org/service-b')).toBeNull();
    expect(await store.putPolicy({ ...policy, project: 'other' }, 0)).toEqual({ saved: true });
    expect(await store.repositoryOwner('demo-org/service-b')).toBe('other');
  });

  it('keeps the webhook health, the budgets and the last reconciliation', async () => {
    await store.noteReceived('2030-01-01T00:00:02.000Z');
    await store.noteReceived('2030-01-01T00:00:01.000Z');
    await store.noteFailure(at);
    await store.noteFailure(at);
    expect(await store.webhookHealth()).toEqual({
      last_received_at: '2030-01-01T00:00:02.000Z',
      processing_failures: 2,
      last_failure_at: at,
    });
    const budget = {
      installation: '7',
      limit: 5000,
      remaining: 12,
      reset_at: at,
      throttled_until: null,
      observed_at: at,
    };
    await store.putBudget(budget);
    expect(await store.budgets()).toEqual([budget]);
    expect(await store.lastReconciliation()).toBeNull();
  });
});
