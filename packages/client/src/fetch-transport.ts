/**
 * The transport of a plain script (a team's CI step): `fetch`, a bearer token, a deadline per
 * request. Failures without an answer become an ApiError too, so a script handles one error type.
 */
import type { Transport, WireAnswer, WireRequest } from './client.ts';
import { ApiError, ClientCode, clientProblem } from './errors.ts';

export interface FetchTransportOptions {
  /** The API's base URL, e.g. https://previews.example.com. */
  baseUrl: string | URL;
  /** The bearer token (a machine token, `SVC_API_TOKEN` in CI), or where to get it; none sends none. */
  token?: string | null | (() => string | null | Promise<string | null>);
  /** Seconds before a request is given up (default 30). */
  timeoutSeconds?: number;
  /** Another fetch (a proxy agent, a test double). */
  fetch?: typeof fetch;
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Plain http only to this machine: anywhere else a token would travel readable. */
function requireSafe(url: URL, request: WireRequest): void {
  if (url.protocol === 'https:' || loopbackHosts.has(url.hostname)) return;
  throw new ApiError(
    clientProblem(
      ClientCode.InsecureTransport,
      `refusing to send a credential over plain http to ${url.host}; use an https:// base URL`,
    ),
    { request },
  );
}

function urlOf(base: URL, request: WireRequest): URL {
  const url = new URL(`${base.href.replace(/\/+$/, '')}${request.path}`);
  for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
  return url;
}

async function answerOf(response: Response): Promise<WireAnswer> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let body: unknown = text === '' ? null : text;
  if (text !== '' && /[/+]json\b/.test(type)) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

export function fetchTransport(options: FetchTransportOptions): Transport {
  const base = new URL(options.baseUrl);
  const send = options.fetch ?? fetch;
  return async (request) => {
    const url = urlOf(base, request);
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      ...request.headers,
    };
    const token = typeof options.token === 'function' ? await options.token() : options.token;
    if (request.credential && token) {
      requireSafe(url, request);
      headers.authorization = `Bearer ${token}`;
    }
    let body: string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form !== undefined) {
      body = new URLSearchParams(request.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const seconds = request.timeoutSeconds ?? options.timeoutSeconds ?? 30;
    try {
      const response = await send(url, {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(seconds * 1000),
      });
      return await answerOf(response);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      const timedOut = (error as Error).name === 'TimeoutError';
      const problem = timedOut
        ? clientProblem(ClientCode.ApiTimeout, `${base.origin} did not answer within ${seconds}s`)
        : clientProblem(
            ClientCode.ApiUnreachable,
            `cannot reach ${base.origin}: ${(error as Error).message}`,
          );
      throw new ApiError(problem, { request, cause: error });
    }
  };
}
