/**
 * The CLI as an OAuth 2.0 native client of its own service (RFC 8252): the authorization code
 * with PKCE S256 comes back to a loopback listener; tokens are refreshed (and rotated) silently.
 */
import type { AddressInfo } from 'node:net';
import { bindClient, type Transport } from '@svc/client/bind';
import { ApiError, ClientCode } from '@svc/client/errors';
import { signInOperations } from '@svc/contract/sign-in';
import type { Auth } from '@svc/core';
import { builtin } from './builtins.ts';
import { cliError } from './client.ts';
import type { SavedLogin } from './credentials.ts';
import { CliError, ExitCode, LocalCode, localProblem } from './errors.ts';

const clientId = 'svc-cli';

type TokenFields =
  | { grant_type: 'authorization_code'; code: string; redirect_uri: string; code_verifier: string }
  | { grant_type: 'refresh_token'; refresh_token: string };

function loginFailed(detail: string, exitCode: ExitCode = ExitCode.Auth): CliError {
  return new CliError(localProblem(LocalCode.LoginFailed, detail), exitCode);
}

function savedFrom(answer: Auth.TokenAnswer, now: number): SavedLogin {
  return {
    access_token: answer.access_token,
    access_token_expires_at: new Date(now + answer.expires_in * 1000).toISOString(),
    refresh_token: answer.refresh_token,
    refresh_token_expires_at: new Date(now + answer.refresh_token_expires_in * 1000).toISOString(),
    subject: answer.subject,
    saved_at: new Date(now).toISOString(),
  };
}

/** A refusal the server answered (any status): null when the request failed otherwise. */
function refusalStatus(error: unknown): number | null {
  if (!(error instanceof ApiError) || error.code === ClientCode.UnexpectedResponse) return null;
  return error.status;
}

async function tokenRequest(transport: Transport, fields: TokenFields): Promise<SavedLogin> {
  const now = Date.now();
  let reason: string;
  try {
    const answer = await bindClient(signInOperations, transport).send('token', {
      form: { client_id: clientId, ...fields },
    });
    if (answer.status === 200) return savedFrom(answer.body, now);
    reason = answer.body.error_description || answer.body.error;
  } catch (error) {
    const status = refusalStatus(error);
    if (status === null) throw cliError(error);
    reason = `status ${status}`;
  }
  throw loginFailed(`the server refused the sign-in (${reason}); run "svc auth login" again`);
}

/** A refresh: the saved refresh token for a new pair (the old one is spent). */
export function refreshLogin(transport: Transport, refreshToken: string): Promise<SavedLogin> {
  return tokenRequest(transport, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** RFC 7009: revokes the whole sign-in the token belongs to. */
export async function revokeLogin(transport: Transport, token: string): Promise<boolean> {
  try {
    const answer = await bindClient(signInOperations, transport).send('revoke', {
      form: { client_id: clientId, token },
    });
    return answer.status === 200;
  } catch (error) {
    if (refusalStatus(error) === null) throw cliError(error);
    return false;
  }
}

export interface LoginAttempt {
  /** The address to open in a browser. */
  url: string;
  /** Settles once the browser comes back (or the time is up) with the saved login. */
  done: Promise<SavedLogin>;
  close(): void;
}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>`;

/**
 * Listens on 127.0.0.1 (an ephemeral port) for the redirect carrying the code, checks `state`,
 * and trades the code and the PKCE verifier for tokens.
 */
export async function startLogin(
  transport: Transport,
  apiUrl: URL,
  timeoutSeconds: number,
): Promise<LoginAttempt> {
  const { createHash, randomBytes } = builtin('node:crypto');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');
  let settle: { resolve(login: SavedLogin): void; reject(error: unknown): void } | undefined;
  const done = new Promise<SavedLogin>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = builtin('node:http').createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    const html = (status: number, title: string, text: string) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
      response.end(page(title, text));
    };
    if (url.searchParams.get('state') !== state) {
      html(400, 'Sign-in refused', 'This answer does not belong to the sign-in svc started.');
      return;
    }
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error || !code) {
      html(
        400,
        'Sign-in stopped',
        'svc stopped waiting for this sign-in; see the terminal. You can close this window.',
      );
      const why = url.searchParams.get('error_description') ?? error ?? 'no code came back';
      settle?.reject(
        loginFailed(
          error === 'access_denied'
            ? `${why}; run "svc auth login" again to retry`
            : `the service refused the sign-in: ${why}`,
        ),
      );
      return;
    }
    try {
      const login = await tokenRequest(transport, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      });
      html(200, 'Signed in', 'You can close this window and return to the terminal.');
      settle?.resolve(login);
    } catch (failure) {
      html(400, 'Sign-in failed', 'The code could not be exchanged; see the terminal.');
      settle?.reject(failure);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const timer = setTimeout(
    () =>
      settle?.reject(
        loginFailed(
          `no sign-in came back within ${timeoutSeconds}s; run "svc auth login" again`,
          ExitCode.Failure,
        ),
      ),
    timeoutSeconds * 1000,
  );
  const close = () => {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  };
  done.then(close, close);
  const url = new URL(`${apiUrl.href.replace(/\/+$/, '')}${signInOperations.authorize.path}`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  }).toString();
  return { url: url.href, done, close };
}
