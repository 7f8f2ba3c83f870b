/**
 * The one place requests are made. Plain `node:http`/`node:https` rather than `fetch`: it loads
 * faster (startup is most of a CLI's run) and reports network failures with their errno codes,
 * which become one line naming the URL and `SVC_API_URL` instead of a stack trace.
 */
import type { IncomingMessage } from 'node:http';
import { builtin } from './builtins.ts';
import { CliError, ExitCode, exitCodeForStatus, LocalCode, localProblem, type Problem } from './errors.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

interface RequestOptions {
  query?: Readonly<Record<string, string | number | boolean | null | undefined>>;
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  /** Send the resolved credential (every `/v1` route); `/version` needs none. */
  auth?: boolean;
  /** Overrides the client's timeout (e.g. `svc version` will not wait long for the server). */
  timeoutSeconds?: number;
}

interface HttpAnswer<T> {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: T;
}

export interface HttpClient {
  /** Answers a 2xx with its JSON body; anything else throws a `CliError` carrying the problem. */
  request<T>(method: Method, path: string, options?: RequestOptions): Promise<HttpAnswer<T>>;
  /**
   * A form POST to the OAuth endpoints (`/auth/token`, `/auth/revoke`), whose errors are OAuth's
   * `{ error }` rather than problems: any status is answered, never thrown.
   */
  postForm<T>(path: string, fields: Readonly<Record<string, string>>): Promise<{ status: number; body: T }>;
}

/** Loopback hosts: plain http to them never leaves the machine. */
function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(url.hostname);
}

/** Refuses to send a credential where anyone on the path could read it. */
export function requireSafeTransport(url: URL): void {
  if (url.protocol === 'https:' || isLoopback(url)) return;
  throw new CliError(
    localProblem(
      LocalCode.InsecureTransport,
      `refusing to send a credential over plain http to ${url.host}; use https:// in SVC_API_URL (plain http is only for 127.0.0.1, [::1] and localhost)`,
      [{ path: 'SVC_API_URL', message: 'not https' }],
    ),
    ExitCode.Usage,
  );
}

export function httpClient(config: {
  baseUrl: URL;
  timeoutSeconds: number;
  token: () => Promise<string | null>;
}): HttpClient {
  const base = config.baseUrl.href.replace(/\/+$/, '');
  return {
    async request<T>(method: Method, path: string, options: RequestOptions = {}): Promise<HttpAnswer<T>> {
      const url = new URL(base + path);
      for (const [name, value] of Object.entries(options.query ?? {})) {
        if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
      }
      const headers: Record<string, string> = {
        accept: 'application/json, application/problem+json',
        'user-agent': 'svc-cli',
        ...options.headers,
      };
      let payload: string | undefined;
      if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      if (options.auth !== false) {
        const token = await config.token();
        if (token !== null) {
          requireSafeTransport(url);
          headers.authorization = `Bearer ${token}`;
        }
      }
      const timeoutSeconds = options.timeoutSeconds ?? config.timeoutSeconds;
      const answer = await send(url, method, headers, payload, timeoutSeconds, config.baseUrl);
      return interpret<T>(answer, method, url);
    },

    async postForm<T>(path: string, fields: Readonly<Record<string, string>>) {
      const url = new URL(base + path);
      requireSafeTransport(url);
      const payload = new URLSearchParams(fields).toString();
      const headers = {
        accept: 'application/json',
        'user-agent': 'svc-cli',
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(payload)),
      };
      const answer = await send(url, 'POST', headers, payload, config.timeoutSeconds, config.baseUrl);
      let body: unknown = null;
      try {
        body = answer.text ? JSON.parse(answer.text) : null;
      } catch {
        throw unexpected(answer, `POST ${path}`, 'a body that is not JSON');
      }
      return { status: answer.status, body: body as T };
    },
  };
}

interface RawAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

async function send(
  url: URL,
  method: Method,
  headers: Record<string, string>,
  payload: string | undefined,
  timeoutSeconds: number,
  baseUrl: URL,
): Promise<RawAnswer> {
  const transport = url.protocol === 'https:' ? builtin('node:https') : builtin('node:http');
  return new Promise<RawAnswer>((resolve, reject) => {
    const request = transport.request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
      response.on('error', (error) => fail(error));
    });
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(networkError(error, baseUrl, timeoutSeconds));
    };
    const timer = setTimeout(() => {
      const error = Object.assign(new Error('timed out'), { code: 'SVC_TIMEOUT' });
      request.destroy(error);
    }, timeoutSeconds * 1000);
    request.on('error', fail);
    request.end(payload);
  });
}

const reasons: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

/** One line naming the URL and the variable to change. */
function networkError(error: Error, baseUrl: URL, timeoutSeconds: number): CliError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const where = baseUrl.href.replace(/\/$/, '');
  if (code === 'SVC_TIMEOUT') {
    return new CliError(
      localProblem(
        LocalCode.ApiTimeout,
        `the API at ${where} did not answer within ${timeoutSeconds}s; check it is healthy, or set SVC_API_URL to another API (SVC_HTTP_TIMEOUT sets the limit)`,
        [{ path: 'SVC_API_URL', message: 'no answer in time' }],
      ),
      ExitCode.Failure,
    );
  }
  const reason = reasons[code] ?? (code ? `${code}: ${error.message}` : error.message);
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(baseUrl.hostname);
  const advice = local ? 'start it (npm start in the repository)' : 'check the address';
  return new CliError(
    localProblem(
      LocalCode.ApiUnreachable,
      `cannot reach the API at ${where} (${reason}); ${advice} or set SVC_API_URL to its URL`,
      [{ path: 'SVC_API_URL', message: reason }],
    ),
    ExitCode.Failure,
  );
}

function interpret<T>(answer: RawAnswer, method: Method, url: URL): HttpAnswer<T> {
  const type = String(answer.headers['content-type'] ?? '');
  let body: unknown;
  if (answer.text !== '') {
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
  }
  const what = `${method} ${url.pathname}`;
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.text !== '' && body === undefined) throw unexpected(answer, what, 'a body that is not JSON');
    return { status: answer.status, headers: answer.headers, body: (body ?? null) as T };
  }
  if (isProblem(body)) throw new CliError(body, exitCodeForStatus(answer.status));
  const got = type ? `a ${type.split(';')[0]} body` : 'no problem body';
  throw unexpected(answer, what, got);
}

function unexpected(answer: RawAnswer, what: string, got: string): CliError {
  const problem = localProblem(
    LocalCode.UnexpectedResponse,
    `${what} answered ${answer.status} with ${got}; is SVC_API_URL pointing at the svc API?`,
  );
  problem.status = answer.status;
  return new CliError(problem, answer.status >= 400 ? exitCodeForStatus(answer.status) : ExitCode.Failure);
}

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as Problem).code === 'string' &&
    typeof (body as Problem).status === 'number'
  );
}
