/** Token mode: machine tokens with grants, issued, listed and revoked by Admins; audit of who did what. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Auth, sha256 } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifest } from '@svc/local/demo';
import { httpClient, testToken, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
let adminToken: string;
useTestStack({ authMode: Auth.AuthMode.Token }, async (started) => {
  stack = started.stack;
  adminToken = await started.token('root', Auth.Role.Admin);
});

const bearer = (token: string) => httpClient(stack.apiUrl, { authorization: `Bearer ${token}` });
const developerOfDemo = [{ role: 'developer', project: 'demo', repository: null }];

/** A problem without its request id, the one part of a body that differs per request. */
const sameAcrossRequests = ({ instance: _, ...body }: Record<string, unknown>) => body;
const unknownOrExpired =
  'Bearer error="invalid_token", error_description="The credential sent is unknown or has expired."';

/** The body every refused credential gets in token mode, whatever was wrong with it. */
async function noCredentialBody() {
  return sameAcrossRequests((await httpClient(stack.apiUrl).get('/v1/projects')).body);
}

describe('bearer token auth', () => {
  it('answers 401 without credentials on every /v1 route, the same body for each failure, offering no sign-in in token mode', async () => {
    const http = httpClient(stack.apiUrl);
    const bodies = new Set<string>();
    for (const path of ['/v1/compositions', '/v1/projects', '/v1/compositions/c-x', '/v1/tokens']) {
      const { status, headers, body } = await http.get(path);
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toBe('Bearer');
      bodies.add(JSON.stringify(sameAcrossRequests(body)));
    }
    // A credential sent and refused is named invalid in the challenge (RFC 6750 §3.1); another scheme is no attempt at ours.
    for (const [header, challenge] of [
      ['Bearer svc_not-a-real-token', unknownOrExpired],
      ['Bearer svca_unknown', unknownOrExpired],
      ['Basic abc', 'Bearer'],
      ['Bearer', 'Bearer'],
    ] as const) {
      const answer = await httpClient(stack.apiUrl, { authorization: header }).get('/v1/projects');
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate'), header).toBe(challenge);
      bodies.add(JSON.stringify(sameAcrossRequests(answer.body)));
    }
    expect([...bodies].map((body) => JSON.parse(body))).toEqual([
      {
        type: '/docs/errors.md#unauthenticated',
        title: 'Unauthenticated',
        status: 401,
        code: 'unauthenticated',
        detail:
          'Send Authorization: Bearer <token> (svc reads it from SVC_API_TOKEN); this installation has no sign-in.',
        errors: [],
      },
    ]);
  });

  it('keeps /healthz, /auth/config and the OpenAPI document public', async () => {
    const http = httpClient(stack.apiUrl);
    const health = await http.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body.auth).toEqual({ mode: 'token', warning: null });
    expect((await http.get('/v1/openapi.json')).status).toBe(200);
    const config = await http.get('/auth/config');
    expect(config.body).toMatchObject({
      mode: 'token',
      sign_in: false,
      machine_tokens: true,
      csrf_token: null,
    });
    expect((await http.get('/auth/login')).status).toBe(404);
  });

  it('issues tokens with grants to Admins only, shows the secret once and stores only its hash', async () => {
    const admin = bearer(adminToken);
    const { status, headers, body } = await admin.post('/v1/tokens', {
      name: 'ci-bot',
      grants: developerOfDemo,
    });
    expect(status).toBe(201);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).toMatchObject({
      name: 'ci-bot',
      subject: 'token:ci-bot',
      grants: developerOfDemo,
      revoked_at: null,
    });
    expect(body.token).toMatch(/^svc_/);
    const days = (Date.parse(body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);

    const developer = bearer(body.token);
    expect((await developer.get('/v1/auth/identity')).body).toMatchObject({
      subject: 'token:ci-bot',
      kind: 'machine',
      grants: developerOfDemo,
      author: 'token:ci-bot',
      credential: { kind: 'machine_token', id: body.id },
      mode: 'token',
    });
    const refused = await developer.post('/v1/tokens', {
      name: 'escalate',
      grants: [{ role: 'admin', project: '*' }],
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');

    const stored = await stack.clients.documents.send(
      new GetCommand({
        TableName: stack.resources.tableName,
        Key: { pk: `TOKEN#${sha256(body.token)}`, sk: 'TOKEN' },
      }),
    );
    expect(stored.Item?.subject).toBe('token:ci-bot');
    expect(JSON.stringify(stored.Item)).not.toContain(body.token);
  });

  it("never mints a token that claims a person's identity", async () => {
    const admin = bearer(adminToken);
    for (const name of ['user:alice', 'alice@example.com', 'Alice']) {
      const answer = await admin.post('/v1/tokens', { name, grants: developerOfDemo });
      expect(answer.status, name).toBe(422);
      expect(answer.body.errors[0].path).toBe('/name');
    }
    const extra = await admin.post('/v1/tokens', {
      name: 'x',
      subject: 'user:alice',
      grants: developerOfDemo,
    });
    expect(extra.status).toBe(422);
  });

  it('lists tokens without secrets and revokes them at once; both recorded in the audit trail', async () => {
    const admin = bearer(adminToken);
    const issued = (
      await admin.post('/v1/tokens', { name: 'short-lived', grants: developerOfDemo, expires_in_days: 1 })
    ).body;
    expect((await bearer(issued.token).get('/v1/projects')).status).toBe(200);
    const listed = await admin.get('/v1/tokens');
    expect(listed.status).toBe(200);
    const entry = listed.body.items.find((t: { id: string }) => t.id === issued.id);
    expect(entry).toMatchObject({ name: 'short-lived', revoked_at: null });
    expect(JSON.stringify(listed.body)).not.toContain('svc_');

    const revoked = await admin.delete(`/v1/tokens/${issued.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toMatch(/Z$/);
    // The same body as any refusal; why, only in the challenge its holder gets.
    const refused = await bearer(issued.token).get('/v1/projects');
    expect(refused.status).toBe(401);
    expect(sameAcrossRequests(refused.body)).toEqual(await noCredentialBody());
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="This machine token was revoked; ask an Admin for a new one (svc admin tokens issue)."',
    );
    expect((await admin.delete(`/v1/tokens/${issued.id}`)).status).toBe(200);
    expect((await admin.delete('/v1/tokens/tok-nothing')).status).toBe(404);

    const audit = await admin.get('/v1/audit-events');
    const actions = audit.body.items
      .filter((e: { target: string }) => e.target === issued.id)
      .map((e: { action: string; actor: { subject: string } }) => `${e.action} by ${e.actor.subject}`);
    expect(actions).toEqual(['token.revoked by token:root', 'token.issued by token:root']);
  });

  it('refuses an expired token', async () => {
    const { token } = await Auth.mintToken(stack.stores.tokens, {
      name: 'old',
      grants: developerOfDemo as Auth.Grant[],
      createdBy: 'test',
      now: new Date(),
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const refused = await bearer(token).get('/v1/projects');
    expect(refused.status).toBe(401);
    expect(sameAcrossRequests(refused.body)).toEqual(await noCredentialBody());
    expect(refused.headers.get('www-authenticate')).toBe(unknownOrExpired);
  });

  it('reads a token issued before grants existed as admin or developer on every project', async () => {
    const secret = `svc_${'l'.repeat(43)}`;
    await stack.clients.documents.send(
      new PutCommand({
        TableName: stack.resources.tableName,
        Item: {
          pk: `TOKEN#${sha256(secret)}`,
          sk: 'TOKEN',
          item_type: 'token',
          subject: 'legacy-ci',
          role: 'member',
          created_at: new Date().toISOString(),
          expires_at: null,
        },
      }),
    );
    const identity = await bearer(secret).get('/v1/auth/identity');
    expect(identity.body).toMatchObject({
      subject: 'legacy-ci',
      grants: [{ role: 'developer', project: '*', repository: null }],
    });
  });

  it('lets only an Admin check the installation', async () => {
    const member = bearer(await memberToken());
    const refused = await member.post('/v1/installation/check', {});
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    const answered = await bearer(adminToken).post('/v1/installation/check', {
      targets: [{ project: 'demo' }],
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('incomplete');
  });

  it('lets a member token use compositions but not rewrite the catalog; applies are audited', async () => {
    const member = bearer(await memberToken());
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
    const admin = bearer(adminToken);
    expect((await admin.post('/v1/catalog/apply', manifest)).status).toBe(200);
    expect((await admin.get('/v1/audit-events?project=nope')).body.items).toEqual([]);
  });
});

const memberToken = () => testToken(stack, `member-${Math.random().toString(36).slice(2, 8)}`);
