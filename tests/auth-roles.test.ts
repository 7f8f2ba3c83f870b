/**
 * Who may do what, route by route: a table of roles × routes (allowed, 403 where the caller may see
 * the object, 404 where its existence must not leak), lists filtered to readable projects, and a
 * walk over the OpenAPI document refusing every route to a caller without credentials.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifest, demoManifestWithoutMessaging } from '@svc/local/demo';
import { type HttpAnswer, type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

const Role = {
  Viewer: 'viewer of demo',
  Developer: 'developer of demo',
  Maintainer: 'maintainer of demo',
  Admin: 'admin on *',
  Publisher: 'publisher for demo acme/x',
  Outsider: 'developer of other',
} as const;
type Role = (typeof Role)[keyof typeof Role];
const roles = Object.values(Role);

const grants: Record<Role, Auth.Grant[]> = {
  [Role.Viewer]: [{ role: 'viewer', project: 'demo', repository: null }],
  [Role.Developer]: [{ role: 'developer', project: 'demo', repository: null }],
  [Role.Maintainer]: [{ role: 'maintainer', project: 'demo', repository: null }],
  [Role.Admin]: [{ role: 'admin', project: '*', repository: null }],
  [Role.Publisher]: [{ role: 'publisher', project: 'demo', repository: 'acme/x' }],
  [Role.Outsider]: [{ role: 'developer', project: 'other', repository: null }],
};

let stack: Stack;
const clients = {} as Record<Role, HttpClient>;
/** A composition of project demo, and one of project other. */
let demoComposition: string;
let otherComposition: string;
/** A pull-request preview of project demo. */
let demoPreview: string;

let serviceBPublisher: HttpClient;
useTestStack({ authMode: Auth.AuthMode.Token, forge: { publishOnPush: false } }, async (started) => {
  stack = started.stack;
  const onlyServiceB = await started.token('publisher-of-service-b', [
    { role: 'publisher', project: 'demo', repository: 'acme/x', components: ['service-b'] },
  ]);
  serviceBPublisher = httpClient(stack.apiUrl, { authorization: `Bearer ${onlyServiceB}` });
  for (const role of roles) {
    const token = await started.token(role.replace(/[^a-z]+/g, '-'), grants[role]);
    clients[role] = httpClient(stack.apiUrl, { authorization: `Bearer ${token}` });
  }
  const admin = clients[Role.Admin];
  expect((await admin.post('/v1/catalog/apply', demoManifestWithoutMessaging('other'))).status).toBe(200);
  const create = (project: string) =>
    admin.post('/v1/compositions', { project, baseline: 'staging', name: 'owned', overrides: {} });
  demoComposition = (await create('demo')).body.id;
  otherComposition = (await create('other')).body.id;
  await create('other');
  const { pullRequest } = await (stack.forge as NonNullable<Stack['forge']>).open({
    repository: 'demo-org/service-b',
    head: 'roles',
    labels: ['preview'],
  });
  for (let tries = 0; !demoPreview && tries < 100; tries++) {
    const { body } = await admin.get('/v1/forge/previews?project=demo');
    demoPreview = body.items.find(
      (p: { pull_request: { number: number } }) => p.pull_request.number === pullRequest?.number,
    )?.id;
    if (!demoPreview) await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

type Expected = number | 'ok';
interface Row {
  route: string;
  call: (http: HttpClient) => Promise<HttpAnswer>;
  expect: Record<Role, Expected>;
}

const sha = (c: string) => c.repeat(40);
const build = (repository: string, commit: string) => ({
  component: 'service-b',
  repository,
  commit_sha: sha(commit),
  ref: 'main',
  image: `registry.example.com/demo/service-b@sha256:${commit.repeat(64)}`,
});
const draft = { project: 'demo', revision: 0, stage: 'workloads', configuration: {} };

/** 404: the caller may not know the object exists; 403: it may, but may not do this. */
const table: Row[] = [
  {
    route: 'GET /v1/compositions/{id} (demo)',
    call: (http) => http.get(`/v1/compositions/${demoComposition}`),
    expect: { ...all(200), [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'GET /v1/compositions/{id}/events (other)',
    call: (http) => http.get(`/v1/compositions/${otherComposition}/events`),
    expect: { ...all(404), [Role.Admin]: 200, [Role.Outsider]: 200 },
  },
  {
    route: 'GET /v1/compositions/{id}/components/{component}/logs (other)',
    call: (http) => http.get(`/v1/compositions/${otherComposition}/components/service-b/logs`),
    expect: { ...all(404), [Role.Admin]: 200, [Role.Outsider]: 200 },
  },
  {
    route: 'GET /v1/compositions/{id}/diagnosis (other)',
    call: (http) => http.get(`/v1/compositions/${otherComposition}/diagnosis`),
    expect: { ...all(404), [Role.Admin]: 200, [Role.Outsider]: 200 },
  },
  {
    route: 'PATCH /v1/compositions/{id} (demo, stale generation)',
    call: (http) =>
      http.patch(`/v1/compositions/${demoComposition}`, { expected_generation: 99, overrides: {} }),
    expect: {
      [Role.Viewer]: 403,
      [Role.Developer]: 409,
      [Role.Maintainer]: 409,
      [Role.Admin]: 409,
      [Role.Publisher]: 403,
      [Role.Outsider]: 404,
    },
  },
  {
    route: 'DELETE /v1/compositions/{id} (other)',
    call: (http) => http.delete(`/v1/compositions/${otherComposition}`),
    // The two who may are last in the row's order of calls below: the destroy is accepted once.
    expect: { ...all(404), [Role.Admin]: 202, [Role.Outsider]: 202 },
  },
  {
    route: 'POST /v1/compositions (demo)',
    call: (http) =>
      http.post('/v1/compositions', { project: 'demo', baseline: 'staging', name: 'r', overrides: {} }),
    // A project the caller may not see is answered as an unregistered one: it does not leak either.
    expect: {
      [Role.Viewer]: 403,
      [Role.Developer]: 202,
      [Role.Maintainer]: 202,
      [Role.Admin]: 202,
      [Role.Publisher]: 403,
      [Role.Outsider]: 422,
    },
  },
  {
    route: 'POST /v1/compositions/plan (demo)',
    call: (http) =>
      http.post('/v1/compositions/plan', { project: 'demo', baseline: 'staging', name: 'r', overrides: {} }),
    // The outsider's plan is the one of an unregistered project: a 200 whose blockers say so.
    expect: { ...all(200), [Role.Publisher]: 403 },
  },
  {
    route: 'POST /v1/catalog/validate (demo)',
    call: (http) => http.post('/v1/catalog/validate', demoManifest()),
    expect: { ...all(200), [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'POST /v1/catalog/apply (demo)',
    call: (http) => http.post('/v1/catalog/apply', demoManifest()),
    expect: { ...all(403), [Role.Maintainer]: 200, [Role.Admin]: 200, [Role.Outsider]: 404 },
  },
  {
    route: 'GET /v1/projects/{project}/components (demo)',
    call: (http) => http.get('/v1/projects/demo/components'),
    expect: { ...all(200), [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'POST /v1/projects/{project}/builds (demo, acme/x)',
    call: (http) => http.post('/v1/projects/demo/builds', build('acme/x', 'a')),
    expect: {
      ...all(403),
      [Role.Maintainer]: 'ok',
      [Role.Admin]: 'ok',
      [Role.Publisher]: 'ok',
      [Role.Outsider]: 404,
    },
  },
  {
    route: 'POST /v1/projects/{project}/builds (demo, acme/y)',
    call: (http) => http.post('/v1/projects/demo/builds', build('acme/y', 'b')),
    expect: { ...all(403), [Role.Maintainer]: 'ok', [Role.Admin]: 'ok', [Role.Outsider]: 404 },
  },
  {
    route: 'GET /v1/projects/{project}/builds (demo)',
    call: (http) => http.get('/v1/projects/demo/builds'),
    expect: { ...all(200), [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'PUT /v1/projects/{project}/onboarding-draft (demo)',
    call: (http) => http.put('/v1/projects/demo/onboarding-draft', draft),
    expect: { ...all(200), [Role.Viewer]: 403, [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'PUT /v1/projects/{project}/frontends/…/binding (demo)',
    call: (http) =>
      http.put(`/v1/projects/demo/frontends/web/revisions/${sha('e')}/binding`, {
        composition_id: demoComposition,
      }),
    expect: { ...all('ok'), [Role.Viewer]: 403, [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'POST /v1/projects/{project}/frontends/…/checks (demo)',
    call: (http) =>
      http.post(`/v1/projects/demo/frontends/web/revisions/${sha('e')}/checks`, {
        expected_version: 1,
        composition_generation: 1,
        status: 'passed',
        message: 'ok',
      }),
    // The publisher grant names a repository; checks are only for publishers of the whole project.
    expect: { ...all(201), [Role.Viewer]: 403, [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'POST /v1/compositions/{id}/checks (demo)',
    call: (http) =>
      http.post(`/v1/compositions/${demoComposition}/checks`, {
        composition_generation: 1,
        status: 'passed',
        message: 'ok',
      }),
    expect: { ...all(201), [Role.Viewer]: 403, [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'PUT /v1/projects/{project}/repositories/{repository}/preview-policy (demo)',
    call: (http) =>
      http.put('/v1/projects/demo/repositories/acme%2Fx/preview-policy', {
        enabled: false,
        trigger_label: 'preview',
        baseline: 'staging',
        components: ['service-b'],
      }),
    expect: { ...all(403), [Role.Maintainer]: 'ok', [Role.Admin]: 'ok', [Role.Outsider]: 404 },
  },
  {
    route: 'GET /v1/projects/{project}/repositories/{repository}/preview-policy (demo)',
    call: (http) => http.get('/v1/projects/demo/repositories/acme%2Fx/preview-policy'),
    expect: { ...all(200), [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'GET /v1/forge/previews/{id} (demo)',
    call: (http) => http.get(`/v1/forge/previews/${demoPreview}`),
    expect: { ...all(200), [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'POST /v1/forge/previews/{id}/stop (demo)',
    call: (http) => http.post(`/v1/forge/previews/${demoPreview}/stop`),
    expect: { ...all(200), [Role.Viewer]: 403, [Role.Publisher]: 403, [Role.Outsider]: 404 },
  },
  {
    route: 'GET /v1/forge/status',
    call: (http) => http.get('/v1/forge/status'),
    expect: { ...all(403), [Role.Admin]: 200 },
  },
  {
    route: 'POST /v1/tokens',
    call: (http) => http.post('/v1/tokens', { name: 'table', grants: grants[Role.Viewer] }),
    expect: { ...all(403), [Role.Admin]: 201 },
  },
  {
    route: 'GET /v1/users',
    call: (http) => http.get('/v1/users'),
    expect: { ...all(403), [Role.Admin]: 200 },
  },
  {
    route: 'GET /v1/audit-events',
    call: (http) => http.get('/v1/audit-events'),
    expect: { ...all(403), [Role.Admin]: 200 },
  },
  {
    route: 'POST /v1/installation/check',
    call: (http) => http.post('/v1/installation/check', { targets: [{ project: 'demo' }] }),
    expect: { ...all(403), [Role.Admin]: 200 },
  },
  {
    route: 'GET /v1/auth/identity',
    call: (http) => http.get('/v1/auth/identity'),
    expect: all(200),
  },
];

function all(expected: Expected): Record<Role, Expected> {
  return Object.fromEntries(roles.map((role) => [role, expected])) as Record<Role, Expected>;
}

describe('roles × routes', () => {
  it.each(table.map((row) => [row.route, row] as const))('%s', async (_route, row) => {
    const seen: Record<string, number | string> = {};
    const wanted: Record<string, number | string> = {};
    for (const role of roles) {
      const answer = await row.call(clients[role]);
      const expected = row.expect[role];
      seen[role] = expected === 'ok' && answer.status >= 200 && answer.status < 300 ? 'ok' : answer.status;
      wanted[role] = expected;
      if (answer.status === 404) expect(answer.body.code).toBe('not_found');
      if (answer.status === 403) expect(answer.body.code).toBe('forbidden');
    }
    expect(seen).toEqual(wanted);
  });
});

describe('the audit trail', () => {
  it('names who published builds and recorded frontend checks', async () => {
    const events = (await clients[Role.Admin].get('/v1/audit-events?project=demo&limit=200')).body.items as {
      action: string;
      actor: { subject: string; credential: string };
    }[];
    const who = (action: string) =>
      new Set(events.filter((e) => e.action === action).map((e) => e.actor.subject));
    expect(who('build.published')).toEqual(
      new Set(['token:maintainer-of-demo', 'token:admin-on-', 'token:publisher-for-demo-acme-x']),
    );
    expect(who('frontend.check_recorded')).toEqual(
      new Set(['token:developer-of-demo', 'token:maintainer-of-demo', 'token:admin-on-']),
    );
    expect(who('catalog.applied').size).toBeGreaterThan(0);
    const published = events.filter((e) => e.action === 'build.published');
    expect(published.every((e) => e.actor.credential === 'machine_token')).toBe(true);
  });
});

describe('lists show only what the caller may read', () => {
  it('compositions', async () => {
    const projectsOf = async (role: Role, query = '') =>
      new Set(
        (await clients[role].get(`/v1/compositions${query}`)).body.items.map(
          (c: { project: string }) => c.project,
        ),
      );
    expect(await projectsOf(Role.Viewer)).toEqual(new Set(['demo']));
    expect(await projectsOf(Role.Outsider)).toEqual(new Set(['other']));
    expect(await projectsOf(Role.Admin)).toEqual(new Set(['demo', 'other']));
    expect(await projectsOf(Role.Publisher)).toEqual(new Set());
    expect(await projectsOf(Role.Viewer, '?project=other')).toEqual(new Set());
  });

  it('projects', async () => {
    const names = async (role: Role) =>
      (await clients[role].get('/v1/projects')).body.items.map((p: { name: string }) => p.name);
    expect(await names(Role.Viewer)).toEqual(['demo']);
    expect(await names(Role.Outsider)).toEqual(['other']);
    expect(await names(Role.Admin)).toEqual(['demo', 'other']);
    expect(await names(Role.Publisher)).toEqual([]);
  });
});

describe('without credentials', () => {
  it('every route of the OpenAPI document that takes a bearer token answers 401 and says nothing else', async () => {
    const anonymous = httpClient(stack.apiUrl);
    const document = (await anonymous.get('/v1/openapi.json')).body;
    const fill = (path: string) =>
      path
        .replace('{id}', demoComposition)
        .replace('{project}', 'demo')
        .replace(/\{[a-z_]+\}/g, 'x');
    let routes = 0;
    for (const [path, methods] of Object.entries(
      document.paths as Record<string, Record<string, { security: unknown[] }>>,
    )) {
      // The probes and the sign-in endpoints take none (`security: []`): they are open, or prove the
      // caller by what they carry.
      for (const method of Object.keys(methods).filter((m) => methods[m]?.security.length)) {
        const answer = await anonymous.request(
          method.toUpperCase(),
          fill(path),
          method === 'get' ? {} : { body: {} },
        );
        expect(answer.status, `${method} ${path}`).toBe(401);
        expect(answer.body).toMatchObject({ code: 'unauthenticated', errors: [] });
        expect(JSON.stringify(answer.body)).not.toMatch(new RegExp(`demo|${demoComposition}|project`));
        routes++;
      }
    }
    expect(routes).toBeGreaterThan(30);
  });
});

describe('a publisher grant naming its components', () => {
  it('publishes builds of those components only', async () => {
    const ofB = await serviceBPublisher.post('/v1/projects/demo/builds', build('acme/x', '9'));
    expect(ofB.status).toBe(201);
    const ofA = await serviceBPublisher.post('/v1/projects/demo/builds', {
      ...build('acme/x', '8'),
      component: 'service-a',
      image: `registry.example.com/demo/service-a@sha256:${'8'.repeat(64)}`,
    });
    expect(ofA.status).toBe(403);
    expect(ofA.body.code).toBe('forbidden');
  });
});
