/**
 * The agent tools with real credentials, on a password installation (people sign in; machine
 * tokens work too): the API's `/mcp` over Streamable HTTP with a bearer token, authorized exactly
 * as the REST routes are, and `svc mcp` with the CLI's credentials — a token file, and a saved login
 * whose expired access token it refreshes once however many calls arrive together.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import {
  answerConsent,
  authorizeUrl,
  Browser,
  formOf,
  type HttpClient,
  httpClient,
  pkce,
  tokenRequest,
  useTestStack,
} from '@svc/local/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../packages/cli/test/helpers.ts';
import { freshConfigDir, httpAgent, stdioAgent } from './support/mcp.ts';

let stack: Stack;
let issue: (name: string, grants: Auth.Grant[]) => Promise<string>;
useTestStack({ authMode: Auth.AuthMode.Password, alongside: ensureBuilt }, (started) => {
  stack = started.stack;
  issue = (name, grants) => started.token(name, grants);
});

const grant = (role: Auth.Grant['role'], project = 'demo'): Auth.Grant[] => [
  { role, project, repository: null },
];
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const mcpUrl = (query = '') => `${stack.apiUrl}/mcp${query}`;

let developer: string;
let viewer: string;
let stranger: string;
let rest: HttpClient;
beforeAll(async () => {
  [developer, viewer, stranger] = await Promise.all([
    issue('agent-dev', grant('developer')),
    issue('agent-viewer', grant('viewer')),
    issue('agent-other', grant('developer', 'elsewhere')),
  ]);
  rest = httpClient(stack.apiUrl, bearer(developer));
});

const createArgs = (name: string) => ({
  project: 'demo',
  baseline: 'staging',
  name,
  overrides: { 'service-b': { image: image('service-b', '2.0.0') } },
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(headers: Record<string, string>) {
  return fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(initialize),
  });
}

/** `svc auth login` done over HTTP: authorize with PKCE, sign in as the browser would, trade the code. */
async function signIn(username: string) {
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const request = pkce();
  const browser = new Browser();
  const page = await browser.follow(await browser.get(authorizeUrl(stack.apiUrl, redirectUri, request)));
  const form = formOf(page);
  const signedIn = await browser.post(form.action, {
    ...form.fields,
    username,
    password: `${username}-local-password`,
  });
  const back = await answerConsent(browser, await browser.follow(signedIn));
  const code = new URL(back.location ?? '').searchParams.get('code') ?? '';
  const { body } = await tokenRequest(stack.apiUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: request.verifier,
  });
  return { browser, tokens: body };
}

describe('/mcp over Streamable HTTP', () => {
  it('refuses a caller without a bearer token, as every /v1 route does', async () => {
    const answer = await post({});
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(await answer.json()).toMatchObject({
      code: 'unauthenticated',
      detail: expect.stringContaining('This endpoint takes a bearer token only'),
    });
    await expect(httpAgent(mcpUrl())).rejects.toThrow();
  });

  it('answers a revoked token and an ended sign-in as it answers no token, saying why in the challenge only', async () => {
    const { instance: _, ...anonymous } = (await (await post({})).json()) as Record<string, unknown>;
    const admin = httpClient(stack.apiUrl, bearer(await issue('agent-admin', grant('admin', '*'))));
    const revoked = (await admin.post('/v1/tokens', { name: 'agent-revoked', grants: grant('developer') }))
      .body;
    expect((await admin.delete(`/v1/tokens/${revoked.id}`)).status).toBe(200);
    const { tokens } = await signIn('bob');
    const loggedOut = await fetch(`${stack.apiUrl}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'svc-cli', token: tokens.refresh_token }).toString(),
    });
    expect(loggedOut.status).toBe(200);
    for (const [token, why] of [
      [revoked.token, 'This machine token was revoked; ask an Admin for a new one (svc admin tokens issue).'],
      [
        tokens.access_token,
        'This sign-in was ended (signed out, by an Admin, or by a password change, a disable or a deletion); sign in again (svc auth login).',
      ],
      ['svc_never-issued', 'The credential sent is unknown or has expired.'],
    ]) {
      const answer = await post(bearer(token));
      expect(answer.status).toBe(401);
      const { instance: __, ...body } = (await answer.json()) as Record<string, unknown>;
      expect(body).toEqual(anonymous);
      expect(answer.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", error_description="${why}"`,
      );
    }
  });

  it('takes no session cookie: a signed-in browser authorizes nothing here', async () => {
    const { browser } = await signIn('bob');
    expect(browser.cookies.size).toBeGreaterThan(0);
    const answer = await post({ cookie: browser.cookieHeader(), origin: stack.apiUrl });
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { detail: string }).detail).toContain(
      'a browser session does not reach it',
    );
  });

  it('refuses pages of another origin, and the stateless GET and DELETE', async () => {
    const foreign = await post({ ...bearer(developer), origin: 'http://attacker.example' });
    expect(foreign.status).toBe(403);
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(mcpUrl(), { method, headers: bearer(developer) });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });

  it('is read-only unless the agent is pointed at ?allow_writes=true', async () => {
    const readOnly = await httpAgent(mcpUrl(), bearer(developer));
    const writer = await httpAgent(mcpUrl('?allow_writes=true'), bearer(developer));
    try {
      const listed = (await readOnly.client.listTools()).tools.map((tool) => tool.name);
      expect(listed).not.toContain('composition_create');
      expect(listed).toContain('composition_get');
      expect((await writer.client.listTools()).tools.map((tool) => tool.name)).toContain(
        'composition_destroy',
      );
      const refused = await readOnly.call('composition_create', createArgs('mcp-http-refused'));
      expect(refused.structured.problem).toMatchObject({ code: 'writes_disabled' });
      expect(refused.text).toMatch(/allow_writes=true/);
      // The wait a function behind a gateway can hold open is shorter than the CLI's.
      const wait = (await readOnly.client.listTools()).tools.find((tool) => tool.name === 'composition_wait');
      expect(wait?.inputSchema.properties?.timeout_seconds).toMatchObject({ maximum: 20, default: 20 });
    } finally {
      await Promise.all([readOnly.close(), writer.close()]);
    }
  });

  it('create → wait → destroy with a confirmation, as the token that called', async () => {
    const agent = await httpAgent(mcpUrl('?allow_writes=true'), bearer(developer));
    try {
      const created = await agent.call('composition_create', createArgs('mcp-http'));
      expect(created.isError, created.text).toBe(false);
      expect(created.structured.owner).toEqual({ kind: 'user', subject: 'token:agent-dev' });
      const id: string = created.structured.id;
      const retried = await agent.call('composition_create', createArgs('mcp-http'));
      expect(retried.structured.id).toBe(id);

      const waited = await agent.call('composition_wait', { id });
      expect(waited.structured.outcome).toBe('ready');

      const asked = await agent.call('composition_destroy', { id });
      expect(asked.structured).toMatchObject({ confirmation_required: true, composition: { id } });
      // A confirmation is the caller's own: another token's agent cannot spend it.
      const other = await httpAgent(
        mcpUrl('?allow_writes=true'),
        bearer(await issue('agent-dev-2', grant('developer'))),
      );
      try {
        const stolen = await other.call('composition_destroy', {
          id,
          confirmation: asked.structured.confirmation,
        });
        expect(stolen.structured.problem).toMatchObject({ code: 'confirmation_invalid' });
      } finally {
        await other.close();
      }
      const destroyed = await agent.call('composition_destroy', {
        id,
        confirmation: asked.structured.confirmation,
      });
      expect(destroyed.structured).toMatchObject({ id, phase: 'destroying' });
    } finally {
      await agent.close();
    }
  });

  it('authorizes each tool exactly as its REST route: 403 where the caller may see, 404 where it may not', async () => {
    const created = await rest.post('/v1/compositions', createArgs('mcp-http-authz'));
    expect(created.status).toBe(202);
    const id: string = created.body.id;

    const asViewer = await httpAgent(mcpUrl('?allow_writes=true'), bearer(viewer));
    const asStranger = await httpAgent(mcpUrl('?allow_writes=true'), bearer(stranger));
    try {
      const viewed = await asViewer.call('composition_get', { id });
      expect(viewed.structured).toMatchObject({ id });

      const viewerCreate = await asViewer.call('composition_create', createArgs('mcp-http-viewer'));
      const restCreate = await httpClient(stack.apiUrl, bearer(viewer)).post(
        '/v1/compositions',
        createArgs('x'),
      );
      expect(restCreate.status).toBe(403);
      expect(viewerCreate.structured.problem).toMatchObject({ status: 403, code: restCreate.body.code });

      const hidden = await asStranger.call('composition_get', { id });
      const restHidden = await httpClient(stack.apiUrl, bearer(stranger)).get(`/v1/compositions/${id}`);
      expect(restHidden.status).toBe(404);
      expect(hidden.structured.problem).toMatchObject({ status: 404, code: restHidden.body.code });
      const hiddenLogs = await asStranger.call('composition_logs', { id, component: 'service-b' });
      expect(hiddenLogs.structured.problem).toMatchObject({ status: 404 });
      const listed = await asStranger.call('composition_list');
      expect(listed.structured.items).toEqual([]);
    } finally {
      await Promise.all([asViewer.close(), asStranger.close()]);
      await rest.delete(`/v1/compositions/${id}`);
    }
  });
});

describe('svc mcp with the CLI credentials', () => {
  it('sends the token file; without any credential the tools answer the 401, and a revoked token the same 401 saying why', async () => {
    const dir = freshConfigDir();
    const file = join(dir, 'token');
    writeFileSync(file, `${developer}\n`, { mode: 0o600 });
    const admin = httpClient(stack.apiUrl, bearer(await issue('agent-admin-stdio', grant('admin', '*'))));
    const revoked = (await admin.post('/v1/tokens', { name: 'stdio-revoked', grants: grant('developer') }))
      .body;
    expect((await admin.delete(`/v1/tokens/${revoked.id}`)).status).toBe(200);
    const withToken = await stdioAgent(stack.apiUrl, { env: { SVC_API_TOKEN_FILE: file } });
    const without = await stdioAgent(stack.apiUrl);
    const withRevoked = await stdioAgent(stack.apiUrl, { env: { SVC_API_TOKEN: revoked.token } });
    try {
      const listed = await withToken.call('catalog_read');
      expect(listed.isError, listed.text).toBe(false);
      expect(listed.structured.items.map((p: { name: string }) => p.name)).toContain('demo');
      const refused = await without.call('catalog_read');
      expect(refused.structured).toEqual({
        problem: expect.objectContaining({ status: 401, code: 'unauthenticated' }),
      });
      const ended = await withRevoked.call('catalog_read');
      const { instance: _, ...body } = ended.structured.problem;
      const { instance: __, ...anonymous } = refused.structured.problem;
      expect(body).toEqual(anonymous);
      const why = 'This machine token was revoked; ask an Admin for a new one (svc admin tokens issue).';
      expect(ended.structured.challenge).toEqual({ error: 'invalid_token', error_description: why });
      expect(ended.text).toBe(`unauthenticated: ${anonymous.detail} ${why}`);
    } finally {
      await Promise.all([withToken.close(), without.close(), withRevoked.close()]);
    }
  });

  /** A saved login of `username` in a config directory of its own, its access token expiring at `expiresAt`. */
  async function savedLogin(username: string, expiresAt: number) {
    const { tokens } = await signIn(username);
    const config = freshConfigDir();
    const path = join(config, 'svc', 'credentials.json');
    mkdirSync(join(config, 'svc'), { recursive: true, mode: 0o700 });
    const login = {
      access_token: tokens.access_token,
      access_token_expires_at: new Date(expiresAt).toISOString(),
      refresh_token: tokens.refresh_token,
      refresh_token_expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      subject: `user:${username}`,
      saved_at: new Date().toISOString(),
    };
    const origin = new URL(stack.apiUrl).origin;
    writeFileSync(path, JSON.stringify({ version: 1, servers: { [origin]: login } }), { mode: 0o600 });
    const saved = () => JSON.parse(readFileSync(path, 'utf8')).servers[origin];
    return { config, login, saved };
  }

  it('refreshes an expired saved login once, however many calls arrive together', async () => {
    const { config, login, saved } = await savedLogin('carol', Date.now() - 1000);
    const agent = await stdioAgent(stack.apiUrl, { env: { XDG_CONFIG_HOME: config } });
    try {
      const answers = await Promise.all(Array.from({ length: 4 }, () => agent.call('composition_list')));
      for (const answer of answers) expect(answer.isError, answer.text).toBe(false);
      expect(saved().refresh_token).not.toBe(login.refresh_token);
      // Had two calls spent the refresh token, the server would have revoked the whole sign-in.
      const later = await agent.call('composition_list');
      expect(later.isError, later.text).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it('renews the saved login when it falls due while the agent keeps the process running', async () => {
    // Due for refresh 30 s before it expires: 6 s from now.
    const { config, login, saved } = await savedLogin('bob', Date.now() + 36_000);
    const agent = await stdioAgent(stack.apiUrl, { env: { XDG_CONFIG_HOME: config } });
    try {
      expect((await agent.call('composition_list')).isError).toBe(false);
      expect(saved().refresh_token).toBe(login.refresh_token);
      await new Promise((resolve) => setTimeout(resolve, 6_500));
      const later = await agent.call('composition_list');
      expect(later.isError, later.text).toBe(false);
      expect(saved().refresh_token).not.toBe(login.refresh_token);
    } finally {
      await agent.close();
    }
  });
});
