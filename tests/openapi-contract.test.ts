import { Auth, errorCatalog } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { contractChecker, type Json } from './support/openapi.ts';

let http: HttpClient;
let stack: Stack;
let document: Json;
const { ajv, conforms, exercised } = contractChecker(() => document);

useTestStack({ forge: { publishOnPush: false, writeIntervalMs: 0 } }, async (started) => {
  http = started.http;
  stack = started.stack;
  document = (await http.get('/v1/openapi.json')).body;
});

describe('OpenAPI contract', () => {
  it('uses only formats a validator knows, so none is silently skipped', () => {
    const formats = new Set<string>();
    JSON.stringify(document, (key, value) => {
      if (key === 'format' && typeof value === 'string') formats.add(value);
      return value;
    });
    expect([...formats].filter((format) => !ajv.formats[format])).toEqual([]);
  });

  it('is OpenAPI 3.1 with /v1 paths, the probes and sign-in outside it, and the error codes', () => {
    expect(document.openapi).toBe('3.1.0');
    const outside = Object.keys(document.paths).filter((path) => !path.startsWith('/v1/'));
    expect(outside.sort()).toEqual([
      '/auth/authorize',
      '/auth/callback',
      '/auth/config',
      '/auth/login',
      '/auth/logout',
      '/auth/revoke',
      '/auth/token',
      '/healthz',
      '/version',
    ]);
    expect(Object.keys(document['x-error-codes'])).toContain('generation_mismatch');
  });

  it('matches real answers of the routes outside /v1 (sign-in ones answer 404 in dev mode)', async () => {
    conforms('get', '/healthz', await http.get('/healthz'));
    conforms('get', '/version', await http.get('/version'));
    conforms('get', '/auth/config', await http.get('/auth/config'));
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const [method, path] of [
      ['get', '/auth/login'],
      ['post', '/auth/login'],
      ['get', '/auth/callback'],
      ['post', '/auth/logout'],
      ['get', '/auth/authorize'],
      ['post', '/auth/authorize'],
      ['post', '/auth/token'],
      ['post', '/auth/revoke'],
    ] as const) {
      const answer = await http.request(
        method.toUpperCase(),
        path,
        method === 'post' ? { body: 'a=b', headers: form } : {},
      );
      expect(answer.body.code, `${method} ${path}`).toBe('not_found');
      conforms(method, path, answer);
    }
  });

  it('matches real answers of every route', async () => {
    const create = { project: 'demo', baseline: 'staging', name: 'contract', overrides: {} };
    const created = await http.post('/v1/compositions', create);
    conforms('post', '/v1/compositions', created);
    conforms('post', '/v1/compositions', await http.post('/v1/compositions', { ...create, ttl: '99h' }));
    const id = created.body.id;
    conforms('get', '/v1/compositions', await http.get('/v1/compositions'));
    conforms('get', '/v1/compositions', await http.get('/v1/compositions?limit=0'));
    conforms('post', '/v1/compositions/plan', await http.post('/v1/compositions/plan', create));
    conforms('get', '/v1/compositions/{id}', await http.get(`/v1/compositions/${id}`));
    conforms('get', '/v1/compositions/{id}', await http.get('/v1/compositions/c-missing'));
    conforms('get', '/v1/compositions/{id}/status', await http.get(`/v1/compositions/${id}/status`));
    conforms('get', '/v1/compositions/{id}/endpoints', await http.get(`/v1/compositions/${id}/endpoints`));
    conforms('get', '/v1/compositions/{id}/events', await http.get(`/v1/compositions/${id}/events`));
    const logs = `/v1/compositions/${id}/components/service-b/logs`;
    conforms(
      'get',
      '/v1/compositions/{id}/components/{component}/logs',
      await http.get(`${logs}?tail_lines=5`),
    );
    conforms(
      'get',
      '/v1/compositions/{id}/components/{component}/logs',
      await http.get(`${logs}?tail_lines=5000`),
    );
    conforms('get', '/v1/compositions/{id}/diagnosis', await http.get(`/v1/compositions/${id}/diagnosis`));
    conforms(
      'get',
      '/v1/compositions/{id}/verification',
      await http.get(`/v1/compositions/${id}/verification`),
    );
    conforms(
      'get',
      '/v1/compositions/{id}/observability',
      await http.get(`/v1/compositions/${id}/observability`),
    );
    conforms('post', '/v1/compositions/{id}/wake', await http.post(`/v1/compositions/${id}/wake`, {}));
    conforms(
      'patch',
      '/v1/compositions/{id}',
      await http.patch(`/v1/compositions/${id}`, { expected_generation: 1, overrides: {} }),
    );
    conforms('delete', '/v1/compositions/{id}', await http.delete(`/v1/compositions/${id}`));

    const manifest = await http.get('/v1/projects');
    conforms('get', '/v1/projects', manifest);
    conforms('get', '/v1/projects/{project}/components', await http.get('/v1/projects/demo/components'));
    conforms('get', '/v1/projects/{project}/baselines', await http.get('/v1/projects/demo/baselines'));
    conforms('post', '/v1/catalog/validate', await http.post('/v1/catalog/validate', { projects: [] }));
    conforms('post', '/v1/catalog/apply', await http.post('/v1/catalog/apply', { projects: [] }));
    const build = {
      component: 'service-b',
      repository: 'acme/service-b',
      commit_sha: 'c'.repeat(40),
      ref: 'main',
      image: `registry.example.com/demo/service-b@sha256:${'c'.repeat(64)}`,
    };
    conforms('post', '/v1/projects/{project}/builds', await http.post('/v1/projects/demo/builds', build));
    conforms('post', '/v1/projects/{project}/builds', await http.post('/v1/projects/demo/builds', build));
    conforms(
      'get',
      '/v1/projects/{project}/builds',
      await http.get('/v1/projects/demo/builds?component=service-b'),
    );
    const grants = [{ role: 'developer', project: 'demo', repository: null }];
    conforms('post', '/v1/tokens', await http.post('/v1/tokens', { subject: 'contract-bot' }));
    const issued = await http.post('/v1/tokens', { name: 'contract-bot', grants });
    conforms('post', '/v1/tokens', issued);
    conforms('get', '/v1/tokens', await http.get('/v1/tokens'));
    conforms('delete', '/v1/tokens/{id}', await http.delete(`/v1/tokens/${issued.body.id}`));
    conforms('delete', '/v1/tokens/{id}', await http.delete('/v1/tokens/tok-none'));
    conforms('put', '/v1/users/{username}', await http.put('/v1/users/contract', { grants }));
    conforms(
      'put',
      '/v1/users/{username}',
      await http.put('/v1/users/contract', { grants, password: 'short' }),
    );
    conforms('get', '/v1/users', await http.get('/v1/users'));
    conforms('get', '/v1/users/{username}/sign-ins', await http.get('/v1/users/contract/sign-ins'));
    conforms('get', '/v1/users/{username}/sign-ins', await http.get('/v1/users/nobody/sign-ins'));
    conforms('delete', '/v1/users/{username}/sign-ins', await http.delete('/v1/users/contract/sign-ins'));
    conforms(
      'delete',
      '/v1/users/{username}/sign-ins/{id}',
      await http.delete('/v1/users/contract/sign-ins/ses-none'),
    );
    conforms('delete', '/v1/users/{username}', await http.delete('/v1/users/contract'));
    conforms('delete', '/v1/users/{username}', await http.delete('/v1/users/contract'));
    conforms('get', '/v1/audit-events', await http.get('/v1/audit-events'));
    conforms('get', '/v1/audit-events', await http.get('/v1/audit-events?project=demo&limit=1'));

    const resolve = '/v1/projects/{project}/sources/resolve';
    const source = (ref: string) =>
      `/v1/projects/demo/sources/resolve?repository=acme/service-b&component=service-b&ref=${ref}`;
    const resolved = await http.get(source('main'));
    expect(resolved.status).toBe(200);
    conforms('get', resolve, resolved);
    conforms('get', resolve, await http.get(source('unpublished')));
    conforms('get', resolve, await http.get('/v1/projects/demo/sources/resolve'));
    conforms('get', resolve, await http.get(source('main').replace('service-b&ref', 'service-z&ref')));

    const draftPath = '/v1/projects/{project}/onboarding-draft';
    const draft = { project: 'contract', revision: 0, stage: 'workloads', configuration: { port: 8080 } };
    conforms('get', draftPath, await http.get('/v1/projects/contract/onboarding-draft'));
    conforms('put', draftPath, await http.put('/v1/projects/contract/onboarding-draft', draft));
    conforms('put', draftPath, await http.put('/v1/projects/contract/onboarding-draft', draft));
    conforms(
      'put',
      draftPath,
      await http.put('/v1/projects/contract/onboarding-draft', { ...draft, configuration: { token: 'x' } }),
    );
    conforms('get', draftPath, await http.get('/v1/projects/contract/onboarding-draft'));
    conforms('delete', draftPath, await http.delete('/v1/projects/contract/onboarding-draft'));
    conforms('delete', draftPath, await http.delete('/v1/projects/contract/onboarding-draft?revision=0'));
    conforms('delete', draftPath, await http.delete('/v1/projects/contract/onboarding-draft?revision=1'));

    const frontend = `/v1/projects/demo/frontends/web/revisions/${'f'.repeat(40)}`;
    const template = '/v1/projects/{project}/frontends/{frontend}/revisions/{revision}';
    const live = (await http.post('/v1/compositions', { ...create, name: 'frontend' })).body.id;
    conforms('put', `${template}/binding`, await http.put(`${frontend}/binding`, { composition_id: live }));
    conforms('put', `${template}/binding`, await http.put(`${frontend}/binding`, { composition_id: live }));
    conforms(
      'put',
      `${template}/binding`,
      await http.put(`${frontend}/binding`, { composition_id: 'c-none' }),
    );
    conforms('get', `${template}/binding`, await http.get(`${frontend}/binding`));
    conforms('get', `${template}/binding`, await http.get(`${frontend}/binding?wait_seconds=99`));
    conforms(
      'post',
      `${template}/publish`,
      await http.post(`${frontend}/publish`, { expected_version: 1, url: 'https://web.example.com/' }),
    );
    conforms(
      'post',
      `${template}/publish`,
      await http.post(`${frontend}/publish`, { expected_version: 1, url: 'https://web.example.com/' }),
    );
    const check = { expected_version: 2, composition_generation: 1, status: 'passed', message: 'renders' };
    const recorded = await http.post(`${frontend}/checks`, check);
    expect(recorded.status).toBe(201);
    conforms('post', `${template}/checks`, recorded);
    conforms(
      'post',
      `${template}/checks`,
      await http.post(`${frontend}/checks`, { ...check, expected_version: 1 }),
    );
    conforms(
      'get',
      '/v1/compositions/{id}/verification',
      await http.get(`/v1/compositions/${live}/verification`),
    );
    const testCheck = { composition_generation: 1, status: 'passed', message: 'e2e passed' };
    const checks = '/v1/compositions/{id}/checks';
    const tested = await http.post(`/v1/compositions/${live}/checks`, testCheck);
    expect(tested.status).toBe(201);
    conforms('post', checks, tested);
    conforms(
      'post',
      checks,
      await http.post(`/v1/compositions/${live}/checks`, { ...testCheck, composition_generation: 9 }),
    );
    conforms('post', checks, await http.post('/v1/compositions/c-none/checks', testCheck));
    conforms('get', '/v1/auth/identity', await http.get('/v1/auth/identity'));
    conforms('post', '/v1/installation/check', await http.post('/v1/installation/check', {}));
    conforms(
      'post',
      '/v1/installation/check',
      await http.post('/v1/installation/check', { targets: [{ project: 'nowhere' }] }),
    );
    const replay = '/v1/admin/dead-letters/replay';
    conforms('post', replay, await http.post(replay, { dry_run: true }));
    conforms('post', replay, await http.post(replay, { limit: 1000 }));
    const drain = '/v1/admin/drain';
    conforms('post', drain, await http.post(`${drain}?limit=1`, { cluster: 'local', dry_run: true }));
    conforms('post', drain, await http.post(drain, { cluster: 'elsewhere', dry_run: true }));
    conforms('post', drain, await http.post(`${drain}?limit=0`, { dry_run: true }));

    conforms('get', '/v1/forge/status', await http.get('/v1/forge/status'));
    conforms('get', '/v1/forge/installations', await http.get('/v1/forge/installations?page=1'));
    conforms('get', '/v1/forge/installations', await http.get('/v1/forge/installations?page=0'));
    const installation = stack.forge?.state().installations[0]?.id;
    const repositories = '/v1/forge/installations/{id}/repositories';
    conforms('get', repositories, await http.get(`/v1/forge/installations/${installation}/repositories`));
    conforms('get', repositories, await http.get('/v1/forge/installations/999999/repositories'));
    const policy = '/v1/projects/{project}/repositories/{repository}/preview-policy';
    const contractPolicy = '/v1/projects/demo/repositories/contract-org%2Fapi/preview-policy';
    const body = { enabled: true, trigger_label: 'preview', baseline: 'staging', components: ['service-a'] };
    conforms('get', policy, await http.get(contractPolicy));
    conforms('put', policy, await http.put(contractPolicy, body));
    conforms('put', policy, await http.put(contractPolicy, { ...body, expected_revision: 1 }));
    conforms('put', policy, await http.put(contractPolicy, { ...body, expected_revision: 1 }));
    conforms('put', policy, await http.put(contractPolicy, { ...body, baseline: 'nowhere' }));
    conforms('put', policy, await http.put(contractPolicy, { ...body, ttl: '99h' }));
    const grouped = await http.put(contractPolicy, { ...body, group_by: 'branch' });
    conforms('put', policy, grouped);
    expect(grouped.body.group_by).toBe('branch');
    const misgrouped = await http.put(contractPolicy, { ...body, group_by: 'repository' });
    conforms('put', policy, misgrouped);
    expect(misgrouped.status).toBe(422);
    expect(misgrouped.body.errors.map((e: { path: string }) => e.path)).toEqual(['/group_by']);
    conforms('get', policy, await http.get(contractPolicy));
    conforms('get', '/v1/forge/preview-policies', await http.get('/v1/forge/preview-policies'));
    conforms('delete', policy, await http.delete(contractPolicy));
    conforms('delete', policy, await http.delete(contractPolicy));

    const { pullRequest } = await (stack.forge as NonNullable<Stack['forge']>).open({
      repository: 'demo-org/service-b',
      head: 'contract',
      labels: ['preview'],
    });
    let previews = await http.get('/v1/forge/previews?project=demo');
    for (let tries = 0; previews.body.items.length === 0 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      previews = await http.get('/v1/forge/previews?project=demo');
    }
    conforms('get', '/v1/forge/previews', previews);
    const deliveries = '/v1/forge/deliveries';
    conforms('get', deliveries, await http.get(`${deliveries}?repository=demo-org/service-b&limit=5`));
    conforms('get', deliveries, await http.get(`${deliveries}?repository=nope`));
    const preview = previews.body.items.find(
      (p: { pull_request: { number: number } }) => p.pull_request.number === pullRequest?.number,
    );
    conforms('get', '/v1/forge/previews/{id}', await http.get(`/v1/forge/previews/${preview.id}`));
    conforms('get', '/v1/forge/previews/{id}', await http.get('/v1/forge/previews/pr-missing'));
    conforms(
      'post',
      '/v1/forge/previews/{id}/restart',
      await http.post(`/v1/forge/previews/${preview.id}/restart`),
    );
    conforms(
      'post',
      '/v1/forge/previews/{id}/stop',
      await http.post(`/v1/forge/previews/${preview.id}/stop`),
    );
    conforms('post', '/v1/forge/previews/{id}/stop', await http.post('/v1/forge/previews/pr-missing/stop'));
    await stack.forge?.close({ repository: 'demo-org/service-b', number: pullRequest?.number as number });
    conforms(
      'post',
      '/v1/forge/previews/{id}/restart',
      await http.post(`/v1/forge/previews/${preview.id}/restart`),
    );
  });

  it("links every problem's type to its entry in the errors document the API serves", async () => {
    const missing = await http.get('/v1/compositions/c-missing');
    const link = new URL(missing.body.type, `${stack.apiUrl}/v1/compositions/c-missing`);
    expect(link.pathname + link.hash).toBe('/docs/errors.md#not_found');
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const text = await page.text();
    for (const [code, entry] of Object.entries(errorCatalog)) {
      expect(text, code).toContain(`id="${code}"`);
      expect(text).toContain(entry.title);
    }
  });

  it('names the permission every route needs (none only where no bearer token is taken)', () => {
    const undeclared = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Json)
        .filter(([, operation]) =>
          operation.security.length === 0
            ? operation['x-permission'] !== 'none' || !operation['x-proof']
            : !Auth.permissionNames.includes(operation['x-permission']),
        )
        .map(([method]) => `${method} ${path}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('documents the security of every route: bearer, or a session cookie (with the CSRF header on changes)', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['bearer', 'csrf', 'session']);
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, operation] of Object.entries(methods as Json)) {
        const expected =
          method === 'get' ? [{ bearer: [] }, { session: [] }] : [{ bearer: [] }, { session: [], csrf: [] }];
        expect(operation.security, `${method} ${path}`).toEqual(expected);
      }
    }
  });

  it('has no documented route left unexercised', () => {
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods as Json).map((method) => `${method} ${path}`),
    );
    expect(documented.filter((route) => !exercised.has(route))).toEqual([]);
  });
});
