/**
 * A real OpenID Connect provider for `npm start -- --auth oidc` and the tests: oidc-provider (a
 * certified OP) on loopback, with seeded accounts, a sign-in form that checks their passwords, and
 * one confidential client registered for the service, which gets refresh tokens to ask for a
 * person's claims again. Consent is implied for that first-party client. Accounts can be changed
 * while it runs (a group removed, a person deleted), as an administrator does at a real provider.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export interface LocalAccount {
  password: string;
  groups: string[];
  /** What the account's `preferred_username` claims (default: its id, which is also its `sub`). */
  preferredUsername?: string;
}

export interface LocalIdentityProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registers the service's callback; the provider answers once this is set. */
  register(redirectUri: string): void;
  /** The account's groups from now on, as its next token or UserInfo answer says them. */
  setGroups(account: string, groups: string[]): void;
  /** Deletes the account: its refresh tokens and access tokens stop being honoured. */
  removeAccount(account: string): void;
  stop(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

async function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function loginPage(uid: string, error: string | null): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local identity provider</title></head>
<body><h1>Local identity provider</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>User name <input name="login" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></body></html>`;
}

/**
 * Listens first (so the issuer, with its port, is known before the API is configured), answers
 * 503 until `register` gives the service's callback URL.
 */
export async function startLocalIdentityProvider(
  seeded: Readonly<Record<string, LocalAccount>>,
  host = '127.0.0.1',
): Promise<LocalIdentityProvider> {
  const accounts = new Map(Object.entries(seeded).map(([id, account]) => [id, { ...account }]));
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | null = null;
  const server: Server = createServer((request, response) => {
    if (!handle) {
      response.writeHead(503).end('not ready');
      return;
    }
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const clientId = 'svc-local';
  const clientSecret = randomBytes(24).toString('base64url');

  const register = (redirectUri: string) => {
    const configuration: Configuration = {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      pkce: { required: () => true },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      jwks: {
        keys: [
          {
            ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
            use: 'sig',
            alg: 'RS256',
          },
        ],
      },
      ttl: {
        Interaction: 600,
        Session: 8 * 3600,
        Grant: 8 * 3600,
        AccessToken: 600,
        IdToken: 600,
        AuthorizationCode: 60,
      },
      scopes: ['openid', 'profile', 'groups'],
      // The service's own client asks for the person's claims again with it; no offline_access dance.
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      claims: { openid: ['sub'], profile: ['preferred_username', 'name'], groups: ['groups'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      async findAccount(_ctx, id) {
        const account = accounts.get(id);
        if (!account) return undefined;
        return {
          accountId: id,
          claims: async () => ({
            sub: id,
            preferred_username: account.preferredUsername ?? id,
            name: id,
            groups: account.groups,
          }),
        };
      },
      // The service is this provider's own first-party client: consent is implied.
      async loadExistingGrant(ctx) {
        const accountId = ctx.oidc.session?.accountId;
        const client = ctx.oidc.client;
        if (!accountId || !client) return undefined;
        const existing = ctx.oidc.session?.grantIdFor(client.clientId);
        if (existing) return ctx.oidc.provider.Grant.find(existing);
        const grant = new ctx.oidc.provider.Grant({ accountId, clientId: client.clientId });
        grant.addOIDCScope('openid profile groups');
        await grant.save();
        return grant;
      },
    };
    const provider = new Provider(issuer, configuration);
    const callback = provider.callback();
    handle = async (request, response) => {
      const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(request.url?.split('?')[0] ?? '');
      if (!match) {
        callback(request, response);
        return;
      }
      try {
        const details = await provider.interactionDetails(request, response);
        if (request.method === 'GET') {
          response.writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-store',
          });
          response.end(loginPage(details.uid, null));
          return;
        }
        const form = await formBody(request);
        const login = form.get('login') ?? '';
        const account = accounts.get(login);
        if (!account || account.password !== form.get('password')) {
          response.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
          response.end(loginPage(details.uid, 'Unknown user name or wrong password.'));
          return;
        }
        await provider.interactionFinished(
          request,
          response,
          { login: { accountId: login } },
          {
            mergeWithLastSubmission: false,
          },
        );
      } catch {
        response.writeHead(400, { 'content-type': 'text/plain' });
        response.end('This sign-in is unknown or has expired; start again.');
      }
    };
  };

  return {
    issuer,
    clientId,
    clientSecret,
    register,
    setGroups(account, groups) {
      const found = accounts.get(account);
      if (!found) throw new Error(`no account ${account}`);
      found.groups = [...groups];
    },
    removeAccount(account) {
      accounts.delete(account);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
