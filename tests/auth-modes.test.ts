/**
 * The modes without people: shared-token (one configured secret, everyone the same identity) and
 * anonymous (no credentials at all, said loudly). Both share one draft author (spec 2.6, 5.4).
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { httpClient, startTestStack, testToken } from '@svc/local/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const sharedToken = 'a-shared-secret-of-more-than-32-characters';
let shared: Stack;
let anonymous: Stack;

beforeAll(async () => {
  [shared, anonymous] = await Promise.all([
    startTestStack({ authMode: Auth.AuthMode.SharedToken, auth: { sharedToken } }),
    startTestStack({
      authMode: Auth.AuthMode.Anonymous,
      auth: { settings: { grants: [{ role: 'viewer', project: 'demo', repository: null }] } },
    }),
  ]);
});
afterAll(() => Promise.all([shared?.stop(), anonymous?.stop()]));

const draft = (stage: string) => ({ project: 'demo', revision: 0, stage, configuration: {} });
const draftPath = '/v1/projects/demo/onboarding-draft';

describe('shared-token mode', () => {
  it('takes the shared token as one identity; callers share one draft author', async () => {
    const first = httpClient(shared.apiUrl, { authorization: `Bearer ${sharedToken}`, 'user-agent': 'one' });
    const second = httpClient(shared.apiUrl, { authorization: `Bearer ${sharedToken}`, 'user-agent': 'two' });
    expect((await first.get('/v1/auth/identity')).body).toMatchObject({
      subject: 'shared',
      kind: 'shared',
      author: 'shared',
      credential: { kind: 'shared_token' },
      mode: 'shared-token',
    });
    const saved = await first.put(draftPath, draft('workloads'));
    expect(saved.body).toMatchObject({ author: 'shared', revision: 1 });
    expect((await second.get(draftPath)).body).toMatchObject({ author: 'shared', stage: 'workloads' });
  });

  it('refuses a wrong or missing token, and still takes machine tokens', async () => {
    expect((await httpClient(shared.apiUrl).get('/v1/projects')).status).toBe(401);
    const wrong = httpClient(shared.apiUrl, { authorization: `Bearer ${sharedToken}x` });
    expect((await wrong.get('/v1/projects')).status).toBe(401);
    const token = await testToken(shared, 'ci');
    const machine = httpClient(shared.apiUrl, { authorization: `Bearer ${token}` });
    expect((await machine.get('/v1/auth/identity')).body.subject).toBe('token:ci');
  });
});

describe('anonymous mode', () => {
  it('says so loudly on /auth/config and /healthz', async () => {
    const http = httpClient(anonymous.apiUrl);
    const config = (await http.get('/auth/config')).body;
    expect(config).toMatchObject({ mode: 'anonymous', sign_in: false, machine_tokens: false });
    expect(config.warning).toMatch(/^ANONYMOUS MODE/);
    expect((await http.get('/healthz')).body.auth.warning).toMatch(/^ANONYMOUS MODE/);
  });

  it('needs no credentials, gives every caller the configured grants and one draft author', async () => {
    const http = httpClient(anonymous.apiUrl);
    expect((await http.get('/v1/auth/identity')).body).toMatchObject({
      subject: 'anonymous',
      kind: 'anonymous',
      author: 'anonymous',
      grants: [{ role: 'viewer', project: 'demo', repository: null }],
    });
    expect((await http.get('/v1/compositions')).status).toBe(200);
    const refused = await http.post('/v1/compositions', {
      project: 'demo',
      baseline: 'staging',
      name: 'anon',
      overrides: {},
    });
    expect(refused.status).toBe(403);
    expect((await http.put(draftPath, draft('workloads'))).status).toBe(403);
  });

  it('does not turn a bearer token into anyone else', async () => {
    const token = await testToken(anonymous, 'ignored', Auth.Role.Admin);
    const http = httpClient(anonymous.apiUrl, { authorization: `Bearer ${token}` });
    expect((await http.get('/v1/auth/identity')).body.subject).toBe('anonymous');
  });
});
