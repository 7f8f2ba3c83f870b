/**
 * Runs the real `svc` executable (the npm-linked bin → bin/svc.js → dist/svc.cjs) as a subprocess.
 * Spawned asynchronously: the API under test runs in this same process and must keep serving.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCliLocked } from '../scripts/build.ts';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const svcBin = join(repoRoot, 'node_modules', '.bin', 'svc');

/** Builds the bundles unless they are up to date; safe to call from every test file at once. */
export const ensureBuilt = () => buildCliLocked();

// biome-ignore lint/suspicious/noExplicitAny: JSON read back from the CLI, inspected by assertions
export type Json = any;

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed; throws (failing the test) when it is not one JSON document. */
  json(): Json;
  /** The problem on stderr: its last line, parsed. */
  problem(): Json;
}

export interface SvcOptions {
  apiUrl?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Node binary to run the executable with (default: the one running the tests). */
  node?: string;
  /** Sees stderr as it arrives (to act on what a running command prints, e.g. a sign-in address). */
  onStderr?: (chunk: string) => void;
}

/** A clean environment: no SVC_* from the developer's shell, and a config dir of its own. */
function baseEnv(): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    HOME: tmpdir(),
    XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'svc-config-')),
  };
}

export function svc(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const env: Record<string, string> = { ...baseEnv() };
  if (options.apiUrl) env.SVC_API_URL = options.apiUrl;
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const [command, commandArgs] = options.node
    ? [options.node, [join(repoRoot, 'packages', 'cli', 'bin', 'svc.js'), ...args]]
    : [svcBin, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout,
        stderr,
        json: () => JSON.parse(stdout),
        problem: () => JSON.parse(stderr.trim().split('\n').at(-1) ?? ''),
      }),
    );
    // A command that never reads stdin may exit before the write lands: EPIPE is not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A stand-in API that records every request and answers with `respond` (default: a 404 problem).
 * For exact requests, answers a real server cannot be made to give, and proof that a refused command
 * sent nothing.
 */
export async function recordingServer(
  respond: (request: Recorded) => { status: number; body?: unknown; type?: string } = () => ({
    status: 404,
    body: {
      type: 'about:blank',
      title: 'Not found',
      status: 404,
      detail: 'no route',
      code: 'not_found',
      errors: [],
    },
  }),
): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const answer = respond(recorded);
      const type = answer.type ?? (answer.status >= 400 ? 'application/problem+json' : 'application/json');
      res.writeHead(answer.status, { 'content-type': type });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Reads the composition through `svc composition get` until its phase is one of `phases`; the error
 * names the phase it was left in. For what `svc composition wait` does not wait for (`destroyed`).
 */
export async function untilPhase(
  apiUrl: string,
  id: string,
  phases: readonly string[],
  timeoutMs = 20_000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await svc(['composition', 'get', id], { apiUrl });
    if (result.code !== 0) throw new Error(`svc composition get ${id}: exit ${result.code} ${result.stderr}`);
    const composition = result.json();
    if (phases.includes(composition.phase)) return composition;
    if (Date.now() > deadline) {
      throw new Error(`composition ${id} is still ${composition.phase}, not ${phases.join('|')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
