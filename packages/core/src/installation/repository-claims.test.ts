import { describe, expect, it } from 'vitest';
import type { PreviewPolicy } from '../forge/model.ts';
import { repositoryClaimsVerdict } from './repository-claims.ts';

const policy = (project: string, repository: string) => ({ project, repository }) as PreviewPolicy;

function store(policies: PreviewPolicy[], owners: Record<string, string> = {}) {
  return {
    listPolicies: async () => ({ items: policies, next_cursor: null }),
    repositoryOwner: async (repository: string) => owners[repository] ?? null,
  };
}

describe('the repository-claims check', () => {
  it('passes when every repository has policies in one project only', async () => {
    const verdict = await repositoryClaimsVerdict(
      store([policy('demo', 'acme/web'), policy('demo', 'acme/api'), policy('shop', 'acme/shop')]),
    );
    expect(verdict).toMatchObject({ status: 'passed', evidence: { repositories: 3, shared: [] } });
  });

  it('fails naming a repository with policies in several projects, and says which holds it', async () => {
    const verdict = await repositoryClaimsVerdict(
      store(
        [
          policy('demo', 'Acme/Web'),
          policy('intruder', 'acme/web'),
          policy('a', 'acme/x'),
          policy('b', 'acme/x'),
        ],
        { 'acme/web': 'demo' },
      ),
    );
    expect(verdict.status).toBe('failed');
    expect(verdict.message).toContain(
      'repository acme/web has preview policies in projects "demo", "intruder"; it belongs to "demo"',
    );
    expect(verdict.message).toContain(
      'repository acme/x has preview policies in projects "a", "b", and each acts',
    );
  });
});
