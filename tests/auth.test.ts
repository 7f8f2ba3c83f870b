import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Auth, sha256 } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifest } from '@svc/local/demo';
import { httpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
let adminToken: string;
useTestStack({ authMode: Auth.AuthMode.Token }, async (started) => {
  stack = started.stack;
  adminToken = await started.token('root', Auth.Role.Admin);
});

describe('bearer token auth', () => {
  it('answers 401 without credentials on every /v1 route', async () => {
    const http = httpClient(stack.apiUrl);
    for (const path of ['/v1/compositions', '/v1/projects', '/v1/compositions/c-x']) {
      const { status, headers, body } = await http.get(path);
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toBe('Bearer');
      expect(body.code).toBe('unauthenticated');
    }
  });

  it('answers 401 for an unknown token', async () => {
    const http = httpClient(stack.apiUrl, { authorization: 'Bearer svc_not-a-real-token' });
    expect((await http.get('/v1/projects')).status).toBe(401);
  });

  it('keeps /healthz and the OpenAPI document public', async () => {
    const http = httpClient(stack.apiUrl);
    expect((await http.get('/healthz')).status).toBe(200);
    expect((await http.get('/v1/openapi.json')).status).toBe(200);
  });

  it('issues tokens to Admins only, shows them once and stores only their hash', async () => {
    const admin = httpClient(stack.apiUrl, { authorization: `Bearer ${adminToken}` });
    const { status, headers, body } = await admin.post('/v1/tokens', {
      subject: 'ci-bot',
      role: 'member',
      expires_in_days: 30,
    });
    expect(status).toBe(201);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body.token).toMatch(/^svc_/);
    expect(body.expires_at).toMatch(/Z$/);

    const member = httpClient(stack.apiUrl, { authorization: `Bearer ${body.token}` });
    expect((await member.get('/v1/projects')).status).toBe(200);
    const refused = await member.post('/v1/tokens', { subject: 'escalate', role: 'admin' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');

    const stored = await stack.clients.documents.send(
      new GetCommand({
        TableName: stack.resources.tableName,
        Key: { pk: `TOKEN#${sha256(body.token)}`, sk: 'TOKEN' },
      }),
    );
    expect(stored.Item?.subject).toBe('ci-bot');
    expect(JSON.stringify(stored.Item)).not.toContain(body.token);
  });

  it('refuses an expired token', async () => {
    const token = await stack.stores.tokens.issue({
      subject: 'old',
      role: 'member',
      now: new Date(),
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    expect(
      (await httpClient(stack.apiUrl, { authorization: `Bearer ${token}` }).get('/v1/projects')).status,
    ).toBe(401);
  });

  it("answers who the credential is, with the server's auth mode", async () => {
    const admin = httpClient(stack.apiUrl, { authorization: `Bearer ${adminToken}` });
    const { status, body } = await admin.get('/v1/auth/identity');
    expect(status).toBe(200);
    expect(body).toEqual({ subject: 'root', role: 'admin', author: 'root', mode: 'token' });
    expect((await httpClient(stack.apiUrl).get('/v1/auth/identity')).status).toBe(401);
  });

  it('lets only an Admin check the installation', async () => {
    const token = await stack.stores.tokens.issue({
      subject: 'dev',
      role: 'member',
      now: new Date(),
      expires_at: null,
    });
    const member = httpClient(stack.apiUrl, { authorization: `Bearer ${token}` });
    expect((await member.get('/v1/auth/identity')).body).toMatchObject({ subject: 'dev', role: 'member' });
    const refused = await member.post('/v1/installation/check', {});
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    const admin = httpClient(stack.apiUrl, { authorization: `Bearer ${adminToken}` });
    const answered = await admin.post('/v1/installation/check', { targets: [{ project: 'demo' }] });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('incomplete');
  });

  it('lets a member token use compositions but not rewrite the catalog', async () => {
    const token = await stack.stores.tokens.issue({
      subject: 'developer',
      role: 'member',
      now: new Date(),
      expires_at: null,
    });
    const member = httpClient(stack.apiUrl, { authorization: `Bearer ${token}` });
    const plan = await member.post('/v1/compositions/plan', {
      project: 'demo',
      baseline: 'staging',
      name: 'p',
      overrides: {},
    });
    expect(plan.status).toBe(200);
    const manifest = demoManifest();
    const refused = await member.post('/v1/catalog/apply', manifest);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    const admin = httpClient(stack.apiUrl, { authorization: `Bearer ${adminToken}` });
    expect((await admin.post('/v1/catalog/apply', manifest)).status).toBe(200);
  });
});
