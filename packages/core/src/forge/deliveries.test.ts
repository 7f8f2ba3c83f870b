import { describe, expect, it } from 'vitest';
import { summarize } from './deliveries.ts';

const pullRequest = (action: string, extra: Record<string, unknown> = {}) => ({
  action,
  number: 4,
  pull_request: { number: 4, title: '$(curl evil) `rm -rf /`', head: { ref: 'feature;reboot' } },
  repository: { full_name: 'demo-org/service-b' },
  installation: { id: 12 },
  ...extra,
});

describe('summarize', () => {
  it.each(['opened', 'reopened', 'synchronize', 'labeled', 'unlabeled', 'closed'])(
    'acts on pull_request.%s and keeps only the repository and number',
    (action) => {
      expect(summarize('pull_request', pullRequest(action))).toEqual({
        action,
        repository: 'demo-org/service-b',
        number: 4,
        repositories: [],
        installation: 12,
        account: null,
        relevant: true,
      });
    },
  );

  it('acts on an edit only when the base changed', () => {
    expect(
      summarize('pull_request', pullRequest('edited', { changes: { title: { from: 'x' } } })).relevant,
    ).toBe(false);
    expect(
      summarize('pull_request', pullRequest('edited', { changes: { base: { ref: { from: 'main' } } } }))
        .relevant,
    ).toBe(true);
  });

  it('ignores other actions, other events and payloads it cannot read', () => {
    expect(summarize('pull_request', pullRequest('assigned')).relevant).toBe(false);
    expect(summarize('push', { ref: 'refs/heads/main' }).relevant).toBe(false);
    expect(
      summarize('pull_request', { action: 'opened', repository: { full_name: 'not a repo' } }).relevant,
    ).toBe(false);
  });

  it('lists the repositories of installation events', () => {
    const added = summarize('installation_repositories', {
      action: 'added',
      installation: { id: 3, account: { login: 'demo-org' } },
      repositories_added: [{ full_name: 'demo-org/a' }],
      repositories_removed: [{ full_name: 'demo-org/b' }],
    });
    expect(added).toMatchObject({ relevant: true, repositories: ['demo-org/a', 'demo-org/b'] });
    expect(
      summarize('installation', {
        action: 'deleted',
        installation: { id: 3, account: { login: 'demo-org' } },
        repositories: [{ full_name: 'demo-org/a' }],
      }).repositories,
    ).toEqual(['demo-org/a']);
  });

  it('keeps the installation and its account of a suspension, which names no repository', () => {
    expect(
      summarize('installation', {
        action: 'suspend',
        installation: {
          id: 16598467,
          account: { login: 'Codertocat' },
          suspended_at: '2021-04-29T02:32:50Z',
        },
      }),
    ).toEqual({
      action: 'suspend',
      repository: null,
      number: null,
      repositories: [],
      installation: 16598467,
      account: 'Codertocat',
      relevant: true,
    });
  });

  it('lists the repositories of an installation whose account has no login (an enterprise)', () => {
    expect(
      summarize('installation_repositories', {
        action: 'removed',
        installation: { id: 9, account: { slug: 'acme-enterprise' } },
        repositories_removed: [{ full_name: 'acme/a' }],
      }),
    ).toMatchObject({ relevant: true, installation: 9, account: null, repositories: ['acme/a'] });
  });

  it('keeps event names with digits as they come, ignored unless previews act on them', () => {
    expect(summarize('projects_v2_item', { action: 'edited', installation: { id: 5 } })).toMatchObject({
      action: 'edited',
      installation: 5,
      relevant: false,
    });
  });
});
