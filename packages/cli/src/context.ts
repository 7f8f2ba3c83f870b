/**
 * What every command gets: the API URL and the transport, built once from the environment. The
 * token is resolved lazily (spec 5.6: token file > token string > saved login), so commands that
 * send no authenticated request never read a credential.
 */

import type { Transport } from '@svc/client/bind';
import { parseDuration } from '@svc/core/duration';
import type { Credential } from './credentials.ts';
import { invalidEnvironment } from './errors.ts';
import { httpTransport } from './http.ts';

const defaultApiUrl = 'http://127.0.0.1:8081';
const defaultRequestTimeoutSeconds = 30;

export interface Context {
  readonly apiUrl: URL;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The credential spec 5.6 selects; read on first use, and again once a saved login's access token
   * is due for refresh, so a long-running command (svc mcp) keeps working. Concurrent requests
   * share one resolution: a refresh token is spent once.
   */
  credential(): Promise<Credential>;
  /** Sends what the typed client asks, with the credential where the operation takes one. */
  readonly transport: Transport;
  /** Human hints: stderr, never stdout. */
  hint(line: string): void;
}

function apiUrlFrom(env: Readonly<Record<string, string | undefined>>): URL {
  const raw = env.SVC_API_URL?.trim() || defaultApiUrl;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidEnvironment('SVC_API_URL', `"${raw}" is not a URL; use e.g. ${defaultApiUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidEnvironment('SVC_API_URL', `"${raw}" must start with http:// or https://`);
  }
  if (url.search || url.hash) {
    throw invalidEnvironment('SVC_API_URL', `"${raw}" must not carry a query or fragment`);
  }
  return url;
}

function requestTimeout(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.SVC_HTTP_TIMEOUT?.trim();
  if (!raw) return defaultRequestTimeoutSeconds;
  const seconds = parseDuration(raw);
  if (seconds === null || seconds < 1 || seconds > 600) {
    throw invalidEnvironment('SVC_HTTP_TIMEOUT', `"${raw}" must be a duration from 1s to 10m, e.g. 30s`);
  }
  return seconds;
}

export function createContext(env: Readonly<Record<string, string | undefined>>): Context {
  const apiUrl = apiUrlFrom(env);
  let credential: Promise<Credential> | undefined;
  let renewAt: number | null = null;
  const timeoutSeconds = requestTimeout(env);
  const context: Context = {
    apiUrl,
    env,
    credential: () => {
      if (credential === undefined || (renewAt !== null && Date.now() >= renewAt)) {
        renewAt = null;
        // Loaded on first use: commands that send no credential (svc version) never read the files.
        const resolving = import('./credentials.ts').then(({ resolveCredential }) =>
          resolveCredential(env, apiUrl, async (refreshToken) =>
            // The sign-in endpoints take no credential: the refresh never waits on itself.
            (await import('./oauth.ts')).refreshLogin(context.transport, refreshToken),
          ),
        );
        credential = resolving;
        resolving.then(
          (resolved) => {
            renewAt = resolved.renewAt;
          },
          () => {
            // A failed resolution is answered to its callers, then tried afresh by the next.
            if (credential === resolving) credential = undefined;
          },
        );
      }
      return credential;
    },
    transport: httpTransport({
      baseUrl: apiUrl,
      timeoutSeconds,
      token: async () => (await context.credential()).token,
    }),
    hint: (line) => process.stderr.write(`svc: ${line}\n`),
  };
  return context;
}
