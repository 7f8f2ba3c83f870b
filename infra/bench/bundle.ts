/**
 * `npm run bench:bundle`: builds the API, worker and webhook Lambda bundles the way SST 4.17 builds
 * a Node function for deploy (its esbuild options in `pkg/runtime/node/build.go`, the per-function
 * `nodejs` settings from infra/settings.ts) and reports what a cold start pays: the bytes loaded
 * (the entry and the chunks it imports statically), gzipped, and the time to import the bundle in
 * a fresh Node process, next to a bare Hono handler built the same way. Alternating runs, medians.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import staging from '../../stacks/staging.ts';
import { bundling, functionEnvironments, lambdaRuntime } from '../settings.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runs = Number(process.env.BENCH_RUNS ?? 15);
const out = mkdtempSync(join(tmpdir(), 'svc-bundle-'));

/** SST's esbuild options for a deployed ESM Node function (`sst deploy`, not `sst dev`). */
function sstOptions(
  entry: string,
  outfile: string,
  splitting: boolean,
  install: readonly string[],
): BuildOptions {
  const target = { 'nodejs24.x': 'es2024' }[lambdaRuntime];
  return {
    entryPoints: [entry],
    platform: 'node',
    external: ['sharp', 'pg-native', ...install],
    keepNames: true,
    bundle: true,
    metafile: true,
    sourcemap: 'linked',
    format: 'esm',
    target,
    mainFields: ['module', 'main'],
    banner: {
      js: [
        `import { createRequire as topLevelCreateRequire } from 'module';`,
        'const require = topLevelCreateRequire(import.meta.url);',
        `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
        'const __filename = topLevelFileUrlToPath(import.meta.url)',
        'const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))',
      ].join('\n'),
    },
    minify: true,
    logLevel: 'error',
    ...(splitting
      ? {
          splitting: true,
          outdir: dirname(outfile),
          entryNames: 'bundle',
          outExtension: { '.js': '.mjs' },
        }
      : { outfile }),
  };
}

/** The output files a cold start reads: the entry and, transitively, what it imports statically. */
function loadedAtStart(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(entry);
  return [...seen];
}

interface Bundle {
  name: string;
  file: string;
  startBytes: number;
  startGzip: number;
  totalBytes: number;
}

async function bundle(
  name: string,
  entry: string,
  splitting: boolean,
  install: readonly string[] = [],
): Promise<Bundle> {
  const dir = join(out, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  // SST's `nodejs.install`: these packages sit in node_modules beside the bundle, not inside it.
  for (const pkg of install) symlinkSync(join(root, 'node_modules', pkg), join(dir, 'node_modules', pkg));
  const outfile = join(dir, 'bundle.mjs');
  // The floor's entry sits outside the repository: it resolves hono from the repository's packages.
  const result = await build({
    ...sstOptions(entry, outfile, splitting, install),
    absWorkingDir: root,
    nodePaths: [join(root, 'node_modules')],
  });
  const outputs = Object.keys(result.metafile?.outputs ?? {}).filter((file) => file.endsWith('.mjs'));
  const entryOutput = relative(root, outfile);
  const start = loadedAtStart(result.metafile as Metafile, entryOutput);
  const bytes = (files: string[]) => files.map((file) => readFileSync(join(root, file)));
  const startContents = Buffer.concat(bytes(start));
  return {
    name,
    file: outfile,
    startBytes: startContents.length,
    startGzip: gzipSync(startContents).length,
    totalBytes: bytes(outputs).reduce((sum, b) => sum + b.length, 0),
  };
}

const floorEntry = join(out, 'floor.ts');
writeFileSync(
  floorEntry,
  [
    `import { Hono } from 'hono';`,
    `import { handle } from 'hono/aws-lambda';`,
    'const app = new Hono();',
    `app.get('/', (c) => c.text('ok'));`,
    'export const handler = handle(app);',
  ].join('\n'),
);

const bundles = [
  await bundle('floor: bare Hono handler', floorEntry, false),
  await bundle(
    'api',
    join(root, 'packages/api/src/entries/lambda.ts'),
    bundling.api.splitting,
    Object.keys(bundling.api.install),
  ),
  await bundle(
    'webhook',
    join(root, 'packages/api/src/entries/webhook-lambda.ts'),
    bundling.webhook.splitting,
  ),
  await bundle('worker', join(root, 'packages/worker/src/lambda.ts'), bundling.worker.splitting),
];

/** What a function's module scope reads at import; never used to reach anything (no request is made). */
const environments = functionEnvironments(
  staging,
  {
    tableName: 'bench',
    jobQueueUrl: 'http://127.0.0.1:9/queue/jobs',
    deadLetterQueueUrl: 'http://127.0.0.1:9/queue/dead',
    publicOrigin: 'https://svc.acme.io',
  },
  { release: 'bench', commit: 'unknown' },
  'staging',
);
// No SST links here: the secrets the functions read are given directly.
const { SVC_SECRETS: _, ...apiEnvironment } = environments.api;
const env = {
  ...process.env,
  ...apiEnvironment,
  CURSOR_KEY: 'k'.repeat(48),
  AWS_REGION: staging.region,
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  NODE_OPTIONS: '',
};

function importMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`importing ${file} failed: ${result.stderr.slice(-2000)}`);
  return Number(result.stdout.trim().split('\n').at(-1));
}

const samples = new Map(bundles.map((b) => [b.name, [] as number[]]));
for (const b of bundles) importMs(b.file);
for (let run = 0; run < runs; run++) for (const b of bundles) samples.get(b.name)?.push(importMs(b.file));
rmSync(out, { recursive: true, force: true });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
const floorMs = median(samples.get(bundles[0]?.name ?? '') ?? []);
console.log(
  `node ${process.version}, esbuild as SST 4.17 deploys (${lambdaRuntime}), ${runs} alternating runs`,
);
console.log(
  'bundle'.padEnd(26),
  'at start'.padStart(10),
  'gzipped'.padStart(10),
  'all chunks'.padStart(11),
  'import ms'.padStart(10),
  'ratio'.padStart(7),
);
for (const b of bundles) {
  const ms = median(samples.get(b.name) ?? []);
  console.log(
    b.name.padEnd(26),
    mb(b.startBytes).padStart(10),
    mb(b.startGzip).padStart(10),
    mb(b.totalBytes).padStart(11),
    ms.toFixed(0).padStart(10),
    `${(ms / floorMs).toFixed(2)}x`.padStart(7),
  );
}
