/**
 * Bundles the CLI for a fast start: a few files to load instead of a tree of TypeScript files, and
 * no type stripping. CommonJS because Node loads it sooner than the same code as ES modules (no
 * asynchronous module jobs to link). Three bundles, each read only when needed:
 *
 * - dist/svc.cjs: the entry, `svc version` and the machinery every command shares (parsing, the
 *   HTTP transport, credentials) — about a tenth of the code;
 * - dist/commands.cjs: the command groups with the contract, the typed client and the schemas and
 *   rules of @svc/core they validate with, and the sign-in flows (a saved login's refresh among them);
 * - dist/mcp.cjs: the MCP tools and their SDK, for `svc mcp` alone.
 *
 * Targets Node 20 so a global install runs on an older system Node.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const cliDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(cliDir, 'dist');
const outFile = join(outDir, 'svc.cjs');
const stampFile = join(cliDir, 'dist', 'inputs.sha256');
/** Every package the bundles carry: an edit to any of them makes the bundle stale. */
const inputDirs = [
  join(cliDir, 'src'),
  join(cliDir, '..', 'client', 'src'),
  join(cliDir, '..', 'contract', 'src'),
  join(cliDir, '..', 'core', 'src'),
  join(cliDir, '..', 'mcp', 'src'),
  join(cliDir, 'scripts'),
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The commit checked out; `unknown`, quietly, outside a git checkout (an unpacked package). */
function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: cliDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

/** What the bundle is made of: sources, the package manifest and the commit it reports. */
function fingerprint(commitId: string): string {
  const hash = createHash('sha256').update(commitId);
  for (const file of inputDirs.flatMap(files).sort()) {
    if (file.endsWith('.test.ts')) continue;
    hash.update(file).update(readFileSync(file));
  }
  return hash.update(readFileSync(join(cliDir, 'package.json'))).digest('hex');
}

/**
 * The lazy command map (src/commands/index.ts) loads each group from dist/commands.cjs, the context
 * the sign-in flows (src/oauth.ts, for a saved login's refresh) from there too, and `svc mcp` the MCP
 * tools from dist/mcp.cjs, at run time, instead of carrying them in the entry's bundle.
 */
const bundlesApart: Plugin = {
  name: 'bundles-apart',
  setup(build) {
    build.onResolve({ filter: /^@svc\/mcp$/ }, () => ({ path: './mcp.cjs', external: true }));
    build.onResolve({ filter: /^\.\/commands\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    build.onResolve({ filter: /^\.\/oauth\.ts$/ }, (args) =>
      args.importer === join(cliDir, 'src', 'context.ts')
        ? { path: 'oauth', namespace: 'sign-in' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'sign-in' }, () => ({
      contents: `export { refreshLogin } from './commands.cjs';`,
      loader: 'js',
    }));
    build.onResolve({ filter: /^\.\/([a-z-]+)(\/index)?\.ts$/ }, (args) => {
      const group = /^\.\/([a-z-]+)/.exec(args.path)?.[1] ?? '';
      const fromMap = args.importer === join(cliDir, 'src', 'commands', 'index.ts');
      return fromMap && group !== 'version' ? { path: group, namespace: 'command-group' } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'command-group' }, (args) => ({
      contents: `export { ${JSON.stringify(args.path)} as default } from './commands.cjs';`,
      loader: 'js',
    }));
  },
};

export async function buildCli(options: { ifStale?: boolean } = {}): Promise<{ built: boolean }> {
  const commitId = commit();
  const inputs = fingerprint(commitId);
  if (options.ifStale) {
    try {
      if (readFileSync(stampFile, 'utf8') === inputs && statSync(outFile).size > 0) return { built: false };
    } catch {
      // No stamp or no bundle yet: build.
    }
  }
  const { version } = JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')) as { version: string };
  const result = await build({
    entryPoints: {
      svc: join(cliDir, 'src', 'cli.ts'),
      commands: join(cliDir, 'src', 'commands', 'groups.ts'),
      mcp: join(cliDir, '..', 'mcp', 'src', 'index.ts'),
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    write: false,
    outdir: outDir,
    outExtension: { '.js': '.cjs' },
    plugins: [bundlesApart],
    define: { __SVC_RELEASE__: JSON.stringify(version), __SVC_COMMIT__: JSON.stringify(commitId) },
    logLevel: 'warning',
  });
  mkdirSync(outDir, { recursive: true });
  for (const output of result.outputFiles) {
    // Write beside the target and rename: a concurrent reader sees the old bundle or the new one.
    const temporary = `${output.path}.${process.pid}.tmp`;
    writeFileSync(temporary, output.contents);
    renameSync(temporary, output.path);
  }
  writeFileSync(stampFile, inputs);
  return { built: true };
}

/** Serializes builds of concurrent test workers: mkdir is atomic. */
export async function buildCliLocked(): Promise<void> {
  const lock = join(cliDir, 'dist', '.build-lock');
  mkdirSync(dirname(lock), { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() - started > 120_000) throw new Error(`could not take ${lock}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    await buildCli({ ifStale: true });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { built } = await buildCli({ ifStale: process.argv.includes('--if-stale') });
  process.stderr.write(built ? `built ${outFile}\n` : `${outFile} is up to date\n`);
}
