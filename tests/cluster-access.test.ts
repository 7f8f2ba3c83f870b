/**
 * What a cluster takes, as the stage says it: a team's own cluster takes that team's baselines, in
 * its own namespaces; a baseline's previews answer only on a domain the installation serves them
 * on; and the routing check, whose answer a project's viewers read, never connects to a loopback,
 * link-local or private address unless the stage allows it (this stack does not, though its
 * gateways are on 127.0.0.1, to show the check refusing them).
 */
import type { Catalog } from '@svc/core';
import { demoManifestAs } from '@svc/local/demo';
import type { HttpClient } from '@svc/local/testing';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let http: HttpClient;
useTestStack(
  {
    clusters: 2,
    clusterAccess: { 'local-2': { projects: ['demo', 'team'], preview_namespaces: ['staging', 'team'] } },
    previewPrivateAddresses: false,
  },
  (started) => {
    http = started.http;
  },
);

/** Project `name` with its one baseline changed by `change`. */
function manifestOf(name: string, change: Partial<Catalog.Baseline>): Catalog.CatalogManifest {
  const manifest = demoManifestAs(name);
  for (const project of manifest.projects) {
    project.baselines = project.baselines.slice(0, 1).map((b) => ({ ...b, messaging: null, ...change }));
  }
  return manifest;
}

const problemsOf = async (manifest: Catalog.CatalogManifest) => {
  const answer = await http.post('/v1/catalog/apply', manifest);
  return {
    status: answer.status,
    problems: (answer.body.errors ?? []).map((e: { path: string; code: string }) => [e.path, e.code]),
  };
};

describe('a cluster the stage scopes to projects', () => {
  it('refuses another project’s baseline there, naming the cluster and the projects it takes', async () => {
    const refused = await http.post(
      '/v1/catalog/apply',
      manifestOf('intruder', { cluster: 'local-2', namespace: 'team' }),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toContainEqual({
      path: '/projects/0/baselines/0/cluster',
      code: 'cluster_not_allowed',
      message: expect.stringContaining('cluster "local-2" takes baselines of projects "demo", "team" only'),
    });
    expect((await http.get('/v1/projects/intruder/baselines')).status).toBe(404);
    // The same project on a cluster that takes every project is welcome.
    expect(
      (await problemsOf(manifestOf('intruder', { cluster: 'local', namespace: 'intruder' }))).status,
    ).toBe(200);
  });

  it('takes its own project’s baselines only in the namespaces it lists', async () => {
    expect(await problemsOf(manifestOf('team', { cluster: 'local-2', namespace: 'elsewhere' }))).toEqual({
      status: 422,
      problems: [['/projects/0/baselines/0/namespace', 'namespace_not_allowed']],
    });
    expect((await problemsOf(manifestOf('team', { cluster: 'local-2', namespace: 'team' }))).status).toBe(
      200,
    );
  });
});

describe('preview domains', () => {
  it.each(['metadata.google.internal', 'localhost', 'intranet.corp.example'])(
    'refuses a baseline whose previews would answer on %s',
    async (domain) => {
      expect(
        await problemsOf(
          manifestOf('domains', { cluster: 'local', preview_domain: domain, namespace: 'domains' }),
        ),
      ).toEqual({
        status: 422,
        problems: [['/projects/0/baselines/0/preview_domain', 'preview_domain_not_allowed']],
      });
    },
  );

  it('never lets the routing check connect to a private address unless the stage allows it', async () => {
    const created = await createComposition(http, {});
    await waitForPhase(http, created.id, ['ready', 'failed'], 60_000);
    const { body } = await http.get(`/v1/compositions/${created.id}/verification`);
    expect(body.items[0]).toMatchObject({ kind: 'routing', status: 'failed', http_status: null });
    expect(body.items[0].message).toContain(
      'resolves to a loopback, link-local or private address, which the routing check does not connect to here',
    );
  }, 90_000);
});
