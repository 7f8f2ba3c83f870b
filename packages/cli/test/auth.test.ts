/**
 * Credentials per spec 5.6 against a token-mode API: SVC_API_TOKEN_FILE beats SVC_API_TOKEN, both
 * beat the saved login (an owner-only file under the user-config dir keyed by server origin).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, recordingServer, svc } from './helpers.ts';

let stack: Stack;
let token: string;
let viewerToken: string;
useTestStack({ authMode: Auth.AuthMode.Token, alongside: ensureBuilt }, async (started) => {
  stack = started.stack;
  token = await started.token('ci');
  viewerToken = await started.token('viewer', [
    { role: Auth.GrantRole.Viewer, project: 'demo', repository: null },
  ]);
});

const list = ['composition', 'list'];
const bad = 'svc_not-a-real-token';

function tokenFile(value: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-token-')), 'token');
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return path;
}

/** A config dir holding a saved login for `origin`. */
function savedLogin(origin: string, access: string, options: { expiresIn?: number; mode?: number } = {}) {
  const config = mkdtempSync(join(tmpdir(), 'svc-config-'));
  mkdirSync(join(config, 'svc'), { mode: 0o700 });
  const path = join(config, 'svc', 'credentials.json');
  const expires = new Date(Date.now() + (options.expiresIn ?? 900) * 1000).toISOString();
  const file = {
    version: 1,
    servers: {
      [origin]: {
        access_token: access,
        access_token_expires_at: expires,
        refresh_token: null,
        refresh_token_expires_at: null,
        subject: 'dev@example.com',
        saved_at: new Date().toISOString(),
      },
      'https://other.example.com': {
        access_token: 'svc_other',
        access_token_expires_at: expires,
        refresh_token: null,
        refresh_token_expires_at: null,
        subject: null,
        saved_at: new Date().toISOString(),
      },
    },
  };
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
  chmodSync(path, options.mode ?? 0o600);
  return { XDG_CONFIG_HOME: config, path };
}

const origin = () => new URL(stack.apiUrl).origin;
const run = (env: Record<string, string>, args = list) => svc(args, { apiUrl: stack.apiUrl, env });

describe('which credential a request carries', () => {
  it('without any, the server answers 401: exit 5 with its problem', async () => {
    const result = await run({});
    expect(result.code).toBe(5);
    expect(result.problem()).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('a credential the server accepts but whose grants do not allow the change: exit 8, not 5', async () => {
    const env = { SVC_API_TOKEN: viewerToken };
    expect((await run(env)).code).toBe(0);
    const create = ['composition', 'create', '--name', 'viewer-try', '--inherit-all'];
    const refused = await run(env, create);
    expect(refused.code).toBe(8);
    expect(refused.problem()).toMatchObject({ status: 403, code: 'forbidden' });
    expect(refused.stdout).toBe('');
    const help = await svc(['composition', 'create', '--help']);
    expect(help.stderr).toContain('5 authentication (401), 8 forbidden (403)');
  });

  it('SVC_API_TOKEN is sent as a bearer token', async () => {
    const result = await run({ SVC_API_TOKEN: token });
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toHaveProperty('items');
  });

  it('SVC_API_TOKEN_FILE wins over SVC_API_TOKEN', async () => {
    expect((await run({ SVC_API_TOKEN_FILE: tokenFile(token), SVC_API_TOKEN: bad })).code).toBe(0);
    expect((await run({ SVC_API_TOKEN_FILE: tokenFile(bad), SVC_API_TOKEN: token })).code).toBe(5);
  });

  it('the saved login for this origin is used when no token is set', async () => {
    const { XDG_CONFIG_HOME } = savedLogin(origin(), token);
    expect((await run({ XDG_CONFIG_HOME })).code).toBe(0);
  });

  it('a token string wins over the saved login', async () => {
    const { XDG_CONFIG_HOME } = savedLogin(origin(), token);
    expect((await run({ XDG_CONFIG_HOME, SVC_API_TOKEN: bad })).code).toBe(5);
  });

  it('a saved login for another origin is not used', async () => {
    const { XDG_CONFIG_HOME } = savedLogin('http://127.0.0.1:1', token);
    expect((await run({ XDG_CONFIG_HOME })).code).toBe(5);
  });

  it('an expired saved login asks for a new login: exit 5, nothing sent', async () => {
    const { XDG_CONFIG_HOME } = savedLogin(origin(), token, { expiresIn: -60 });
    const result = await run({ XDG_CONFIG_HOME });
    expect(result.code).toBe(5);
    expect(result.problem()).toMatchObject({ code: 'login_required' });
    expect(result.problem().detail).toMatch(/svc auth login/);
  });

  it('a credentials file others can read is refused, with the chmod to run', async () => {
    const { XDG_CONFIG_HOME, path } = savedLogin(origin(), token, { mode: 0o644 });
    const result = await run({ XDG_CONFIG_HOME });
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ code: 'insecure_credentials' });
    expect(result.problem().detail).toContain(`chmod 600 ${path}`);
  });
});

describe('svc auth', () => {
  it('status names the effective source and whether the server accepts it', async () => {
    const file = tokenFile(token);
    const { XDG_CONFIG_HOME } = savedLogin(origin(), token);
    const cases: [Record<string, string>, string, number][] = [
      [{ SVC_API_TOKEN_FILE: file, SVC_API_TOKEN: bad, XDG_CONFIG_HOME }, 'token_file', 0],
      [{ SVC_API_TOKEN: token, XDG_CONFIG_HOME }, 'token', 0],
      [{ XDG_CONFIG_HOME }, 'saved_login', 0],
      [{}, 'none', 5],
    ];
    for (const [env, source, code] of cases) {
      const result = await run(env, ['auth', 'status']);
      expect(result.code, `${source}: ${result.stderr}`).toBe(code);
      expect(result.json()).toMatchObject({
        api_url: stack.apiUrl,
        source,
        token_file: source === 'token_file' ? file : null,
        server: { accepted: code === 0, status: code === 0 ? 200 : 401 },
        identity:
          code === 0 ? { subject: 'token:ci', kind: 'machine', author: 'token:ci', mode: 'token' } : null,
      });
    }
  });

  it('status against a server without GET /v1/auth/identity still says whether the credential is accepted', async () => {
    const server = await recordingServer((request) =>
      request.url.startsWith('/v1/projects')
        ? { status: 200, body: { items: [], next_cursor: null } }
        : {
            status: 404,
            body: {
              type: 'about:blank',
              title: 'Not found',
              status: 404,
              detail: 'no route',
              code: 'not_found',
              errors: [],
            },
          },
    );
    try {
      const result = await svc(['auth', 'status'], { apiUrl: server.url, env: { SVC_API_TOKEN: token } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.json()).toMatchObject({
        source: 'token',
        server: { accepted: true, status: 200 },
        identity: null,
      });
      expect(server.requests.map((r) => r.url)).toEqual(['/v1/auth/identity', '/v1/projects?limit=1']);
    } finally {
      await server.close();
    }
  });

  it('login answers that this server has no browser login, and what to do instead', async () => {
    const result = await run({}, ['auth', 'login']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({ code: 'login_not_supported' });
    expect(result.problem().detail).toMatch(/SVC_API_TOKEN_FILE/);
  });

  it("logout forgets only this server's saved login, keeping the file owner-only", async () => {
    const { XDG_CONFIG_HOME, path } = savedLogin(origin(), token);
    const first = await run({ XDG_CONFIG_HOME }, ['auth', 'logout']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ removed: true, revoked: false, credentials_file: path });
    const left = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(left.servers)).toEqual(['https://other.example.com']);
    expect((await import('node:fs')).statSync(path).mode & 0o777).toBe(0o600);
    expect((await run({ XDG_CONFIG_HOME }, ['auth', 'logout'])).json()).toMatchObject({ removed: false });
  });
});
