/**
 * The CLI's transport: the one place requests are made. Plain `node:http`/`node:https` rather than
 * `fetch`: it loads faster (start-up is most of a CLI's run) and reports network failures with
 * their errno codes, which become one line naming the URL and `SVC_API_URL` instead of a stack
 * trace. What the requests are (paths, bodies, answers) is the typed client's business
 * (`@svc/client`); this sends them, with the credential where the operation takes one.
 */
import type { IncomingMessage } from 'node:http';
import type { Transport, WireAnswer, WireRequest } from '@svc/client/bind';
import { builtin } from './builtins.ts';
import { CliError, ExitCode, LocalCode, localProblem } from './errors.ts';

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

function payloadOf(request: WireRequest): { type: string; text: string } | null {
  if (request.json !== undefined) return { type: 'application/json', text: JSON.stringify(request.json) };
  if (request.form !== undefined) {
    return { type: 'application/x-www-form-urlencoded', text: new URLSearchParams(request.form).toString() };
  }
  return null;
}

export function httpTransport(config: {
  baseUrl: URL;
  timeoutSeconds: number;
  /** The credential's token, resolved on the first request that sends one. */
  token: () => Promise<string | null>;
}): Transport {
  const base = config.baseUrl.href.replace(/\/+$/, '');
  return async (request) => {
    const url = new URL(base + request.path);
    for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      'user-agent': 'svc-cli',
      ...request.headers,
    };
    const payload = payloadOf(request);
    if (payload) {
      headers['content-type'] = payload.type;
      headers['content-length'] = String(Buffer.byteLength(payload.text));
    }
    if (request.credential) {
      const token = await config.token();
      if (token !== null) {
        requireSafeTransport(url);
        headers.authorization = `Bearer ${token}`;
      }
    } else if (request.form !== undefined) {
      // A form carries a secret of its own (a refresh token, a code): the same rule.
      requireSafeTransport(url);
    }
    const timeoutSeconds = request.timeoutSeconds ?? config.timeoutSeconds;
    const answer = await send(url, request.method, headers, payload?.text, timeoutSeconds, config.baseUrl);
    return parsed(answer);
  };
}

interface RawAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

async function send(
  url: URL,
  method: string,
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

/** A JSON body parsed (whatever the server called it), any other as text, none as null. */
function parsed(answer: RawAnswer): WireAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (answer.text === '') return { status: answer.status, headers, body: null };
  try {
    return { status: answer.status, headers, body: JSON.parse(answer.text) };
  } catch {
    return { status: answer.status, headers, body: answer.text };
  }
}
