/**
 * Runs the real `svc` executable (the npm-linked bin → bin/svc.js → dist/svc.cjs) as a subprocess.
 * Spawned asynchronously: the API under test runs in this same process and must keep serving.
 * `svcInProcess` runs the same entry without a process, for what is not about the process.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCliLocked } from '../scripts/build.ts';
import { main } from '../src/main.ts';

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

function svcEnv(options: SvcOptions): Record<string, string> {
  const env: Record<string, string> = { ...baseEnv() };
  if (options.apiUrl) env.SVC_API_URL = options.apiUrl;
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

function svcResult(code: number | null, stdout: string, stderr: string): SvcResult {
  return {
    code,
    stdout,
    stderr,
    json: () => JSON.parse(stdout),
    problem: () => JSON.parse(stderr.trim().split('\n').at(-1) ?? ''),
  };
}

export function svc(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const env = svcEnv(options);
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
    child.on('close', (code) => resolve(svcResult(code, stdout, stderr)));
    // A command that never reads stdin may exit before the write lands: EPIPE is not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

/** What the CLI writes while one in-process run is in progress, kept apart from the others'. */
const inProcessOutput = new AsyncLocalStorage<{ stdout: string; stderr: string }>();
let writesRouted = false;

function routeWrites(): void {
  if (writesRouted) return;
  writesRouted = true;
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = process[name];
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const output = inProcessOutput.getStore();
      if (!output) return write(chunk, ...rest);
      output[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof stream.write;
  }
}

/**
 * `svc` through the CLI's entry (`main`) in this process, its stdout and stderr captured: no process
 * start (about 0.2 s of CPU each), for tests of parsing, validation and output. What the executable itself does (the
 * bundle, exit codes, stdin, the environment) stays with {@link svc}. No stdin: a command reading it
 * belongs there too.
 */
export async function svcInProcess(
  args: string[],
  options: Omit<SvcOptions, 'stdin' | 'node' | 'onStderr'> = {},
) {
  routeWrites();
  const output = { stdout: '', stderr: '' };
  const code = await inProcessOutput.run(output, () => main(args, svcEnv(options)));
  return svcResult(code, output.stdout, output.stderr);
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
