/** `GET /v1/projects/{project}/sources/resolve`: a ref or commit to the build CI published for it, never another. */
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let http: HttpClient;
useTestStack({ worker: false }, (started) => {
  http = started.http;
});

const sha = (c: string) => c.repeat(40);

async function publish(component: string, ref: string, commit: string, repository = 'acme/shop') {
  const { status, body } = await http.post('/v1/projects/demo/builds', {
    component,
    repository,
    commit_sha: sha(commit),
    ref,
    image: `registry.example.com/demo/${component}@sha256:${commit.repeat(64)}`,
  });
  expect([200, 201], JSON.stringify(body)).toContain(status);
  return body;
}

const resolve = (query: Record<string, string>) =>
  http.get(`/v1/projects/demo/sources/resolve?${new URLSearchParams(query)}`);
const query = (ref: string, component = 'service-b', repository = 'acme/shop') => ({
  repository,
  component,
  ref,
});

describe('source resolve', () => {
  it('resolves a branch, short or full, to the build most recently published for it', async () => {
    const a = await publish('service-b', 'refs/heads/main', 'a');
    const b = await publish('service-b', 'refs/heads/main', 'b');
    for (const ref of ['main', 'refs/heads/main']) {
      const { status, body } = await resolve(query(ref));
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body).toEqual({
        project: 'demo',
        repository: 'acme/shop',
        component: 'service-b',
        ref,
        matched_ref: 'refs/heads/main',
        commit_sha: sha('b'),
        build: b,
      });
    }
    // CI publishing main at a again (a force-push back) moves the ref back: publication order decides.
    expect((await publish('service-b', 'refs/heads/main', 'a')).id).toBe(a.id);
    expect((await resolve(query('main'))).body.build.id).toBe(a.id);
    expect((await publish('service-b', 'refs/heads/main', 'b')).id).toBe(b.id);
  });

  it('prefers the tag to the branch of the same short name, as git does', async () => {
    const tag = await publish('service-b', 'refs/tags/v1', 'c');
    const branch = await publish('service-b', 'refs/heads/v1', 'd');
    expect((await resolve(query('v1'))).body).toMatchObject({ matched_ref: 'refs/tags/v1', build: tag });
    expect((await resolve(query('refs/heads/v1'))).body).toMatchObject({
      matched_ref: 'refs/heads/v1',
      commit_sha: sha('d'),
      build: branch,
    });
  });

  it('resolves a full commit SHA to the build of that commit', async () => {
    const { body } = await resolve(query(sha('c')));
    expect(body).toMatchObject({
      matched_ref: sha('c'),
      commit_sha: sha('c'),
      build: { ref: 'refs/tags/v1' },
    });
  });

  it('a build published again for another ref keeps its id and resolves by both refs', async () => {
    const again = await publish('service-b', 'refs/tags/v2', 'b');
    const byTag = await resolve(query('v2'));
    expect(byTag.body).toMatchObject({ matched_ref: 'refs/tags/v2', commit_sha: sha('b') });
    expect(byTag.body.build.id).toBe(again.id);
    const listed = await http.get(`/v1/projects/demo/builds?commit_sha=${sha('b')}`);
    expect(listed.body.items).toHaveLength(1);
  });

  it('never substitutes another build: an unpublished ref or commit is a 404 saying CI must publish it', async () => {
    const unpublished = [
      query('feature-x'),
      query('refs/heads/v2'),
      query(sha('e')),
      query('main', 'service-c'),
      query('main', 'service-b', 'acme/other'),
    ];
    for (const q of unpublished) {
      const { status, body } = await resolve(q);
      expect(status, JSON.stringify(q)).toBe(404);
      expect(body.code).toBe('not_found');
      expect(body.detail).toContain('CI must publish that revision first');
    }
  });

  it('answers 400 naming each missing or bad parameter, 404 for an unknown project, 422 for an unregistered component', async () => {
    const missing = await http.get('/v1/projects/demo/sources/resolve');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'invalid_query' });
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'component',
      'ref',
      'repository',
    ]);
    const bad = await resolve({ repository: 'acme', component: 'Service B', ref: 'a b' });
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'component',
      'ref',
      'repository',
    ]);
    expect(
      (await http.get(`/v1/projects/nope/sources/resolve?${new URLSearchParams(query('main'))}`)).status,
    ).toBe(404);
    const unknown = await resolve(query('main', 'service-z'));
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('unknown_reference');
  });
});
