import { createSign, generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appClient, bareClient, failure, type Harness, installationClient, startHarness } from './support.ts';

function signJwt(privateKey: string, claims: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode(claims)}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(privateKey).toString('base64url');
  return `${unsigned}.${signature}`;
}

const now = () => Math.floor(Date.now() / 1000);

describe('app authentication', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('accepts the JWT auth-app makes and answers GET /app', async () => {
    const { data } = await appClient(h.forge).request('GET /app');
    expect(data).toMatchObject({ id: h.forge.appId, slug: 'preview-service' });
  });

  it('refuses an expired JWT with GitHub 401 body', async () => {
    const jwt = signJwt(h.forge.privateKey, { iat: now() - 1200, exp: now() - 600, iss: h.forge.appId });
    const error = await failure(
      bareClient(h.forge).request('GET /app', { headers: { authorization: `bearer ${jwt}` } }),
    );
    expect(error.status).toBe(401);
    expect(error.response?.data).toEqual({
      message:
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
      documentation_url: 'https://docs.github.com/rest',
      status: '401',
    });
  });

  it('refuses a JWT valid for more than ten minutes', async () => {
    const jwt = signJwt(h.forge.privateKey, { iat: now(), exp: now() + 3600, iss: h.forge.appId });
    const error = await failure(
      bareClient(h.forge).request('GET /app', { headers: { authorization: `bearer ${jwt}` } }),
    );
    expect(error.status).toBe(401);
    expect(error.message).toContain("'Expiration time' claim ('exp') is too far in the future");
  });

  it('refuses a JWT signed with another key, or naming another app', async () => {
    const { privateKey: otherKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const wrongKey = signJwt(otherKey, { iat: now() - 30, exp: now() + 500, iss: h.forge.appId });
    const wrongApp = signJwt(h.forge.privateKey, {
      iat: now() - 30,
      exp: now() + 500,
      iss: h.forge.appId + 1,
    });
    for (const jwt of [wrongKey, wrongApp, 'not.a.jwt']) {
      const error = await failure(
        bareClient(h.forge).request('GET /app/installations', {
          headers: { authorization: `bearer ${jwt}` },
        }),
      );
      expect(error.status).toBe(401);
      expect(error.message).toContain('A JSON web token could not be decoded');
    }
  });

  it('issues hour-long installation tokens that auth-app caches across calls', async () => {
    const octokit = installationClient(h.forge, h.installationId);
    const urls: string[] = [];
    octokit.hook.before('request', (options) => {
      urls.push(`${options.method} ${options.url}`);
    });
    await octokit.request('GET /repos/{owner}/{repo}', { owner: 'demo-org', repo: 'service-b' });
    await octokit.request('GET /installation/repositories');
    await octokit.request('GET /repos/{owner}/{repo}/pulls', { owner: 'demo-org', repo: 'service-b' });
    expect(urls.filter((u) => u.includes('/access_tokens'))).toHaveLength(1);

    const auth = (await octokit.auth({ type: 'installation' })) as { expiresAt: string; token: string };
    const lifetime = Date.parse(auth.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(59 * 60 * 1000);
    expect(lifetime).toBeLessThanOrEqual(60 * 60 * 1000);
    expect(auth.token).toMatch(/^ghs_/);
  });

  it("limits an installation token to its installation's repositories", async () => {
    await h.forge.install({ repository: 'other-org/api' });
    const other = h.forge.state().installations.find((i) => i.account === 'other-org');
    const demo = installationClient(h.forge, h.installationId);

    const { data } = await demo.request('GET /installation/repositories');
    expect(data.repositories.map((r) => r.full_name)).toEqual(['demo-org/service-b']);
    const error = await failure(
      demo.request('GET /repos/{owner}/{repo}', { owner: 'other-org', repo: 'api' }),
    );
    expect(error.status).toBe(404);
    expect(error.response?.data).toMatchObject({ message: 'Not Found' });

    const otherClient = installationClient(h.forge, other?.id ?? 0);
    const { data: api } = await otherClient.request('GET /repos/{owner}/{repo}', {
      owner: 'other-org',
      repo: 'api',
    });
    expect(api.full_name).toBe('other-org/api');
  });

  it('holds a narrowed token to the repositories and permissions it asked for', async () => {
    await h.forge.install({ repository: 'demo-org/web' });
    const app = installationClient(h.forge, h.installationId);
    const narrowed = (await app.auth({
      type: 'installation',
      repositoryNames: ['service-b'],
      permissions: { metadata: 'read', pull_requests: 'read' },
    })) as { token: string };
    const raw = bareClient(h.forge);
    const headers = { authorization: `token ${narrowed.token}` };

    await raw.request('GET /repos/{owner}/{repo}', { owner: 'demo-org', repo: 'service-b', headers });
    const hidden = await failure(
      raw.request('GET /repos/{owner}/{repo}', { owner: 'demo-org', repo: 'web', headers }),
    );
    expect(hidden.status).toBe(404);
    const opened = await h.forge.open({ repository: 'demo-org/service-b', head: 'feature' });
    const forbidden = await failure(
      raw.request('POST /repos/{owner}/{repo}/check-runs', {
        owner: 'demo-org',
        repo: 'service-b',
        name: 'preview',
        head_sha: opened.pullRequest?.headSha ?? '',
        headers,
      }),
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.message).toContain('Resource not accessible by integration');

    const tooMuch = await failure(
      app.request('POST /app/installations/{installation_id}/access_tokens', {
        installation_id: h.installationId,
        permissions: { administration: 'write' },
      }),
    );
    expect(tooMuch.status).toBe(422);
  });

  it('stops accepting tokens of an installation that was deleted', async () => {
    const token = (
      (await installationClient(h.forge, h.installationId).auth({ type: 'installation' })) as {
        token: string;
      }
    ).token;
    const raw = bareClient(h.forge);
    const headers = { authorization: `token ${token}` };
    await raw.request('GET /installation/repositories', { headers });
    await h.forge.uninstall({ target: 'demo-org' });
    const error = await failure(raw.request('GET /installation/repositories', { headers }));
    expect(error.status).toBe(401);
    expect(error.message).toContain('Bad credentials');
  });

  it('answers as GitHub does to missing or mismatched credentials', async () => {
    const raw = bareClient(h.forge);
    expect((await failure(raw.request('GET /app'))).message).toContain('Requires authentication');
    const token = (
      (await installationClient(h.forge, h.installationId).auth({ type: 'installation' })) as {
        token: string;
      }
    ).token;
    const withToken = await failure(
      raw.request('GET /app', { headers: { authorization: `token ${token}` } }),
    );
    expect(withToken.status).toBe(401);
    expect(withToken.message).toContain('A JSON web token could not be decoded');
    const jwt = signJwt(h.forge.privateKey, { iat: now() - 30, exp: now() + 500, iss: h.forge.appId });
    const asApp = await failure(
      raw.request('GET /repos/{owner}/{repo}/pulls', {
        owner: 'demo-org',
        repo: 'service-b',
        headers: { authorization: `bearer ${jwt}` },
      }),
    );
    expect(asApp.status).toBe(403);
  });
});
