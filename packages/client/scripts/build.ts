/**
 * Builds what is published of the typed client, from the same sources the workspace runs:
 *
 * - `dist/`: the `@svc/client` package: ES module JavaScript and one declaration file, each carrying
 *   what the client needs of `@svc/contract` and `@svc/core` (which are not published), so the
 *   package depends on valibot alone. Rolldown bundles both; its declaration plugin emits the types
 *   with the repository's TypeScript 7 (tsgo) and inlines the workspace packages' declarations, which
 *   `tsc --emitDeclarationOnly` alone cannot (it keeps `@svc/contract` as an import). Publish it with
 *   `npm publish packages/client/dist`.
 * - `.github/actions/preview/preview.mjs`: the packaged CI step, bundled with the client and
 *   everything else into one file, because the action runs from a checkout with nothing installed.
 *   It is committed; `tests/ci.test.ts` checks it is what this build makes.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { build as rolldown } from 'rolldown';
import { dts } from 'rolldown-plugin-dts';

const clientDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(clientDir, '..', '..');
const packageDir = join(clientDir, 'dist');
export const actionScript = join(repoRoot, '.github', 'actions', 'preview', 'preview.mjs');

interface Manifest {
  name: string;
  version: string;
  description: string;
  dependencies: Record<string, string>;
  engines: Record<string, string>;
}

/** The published manifest: the source package's name, version and runtime dependencies, the built files. */
function publishedManifest(source: Manifest) {
  return {
    name: source.name,
    version: source.version,
    description: source.description,
    type: 'module',
    sideEffects: false,
    engines: source.engines,
    exports: { '.': { types: './index.d.ts', default: './index.js' }, './package.json': './package.json' },
    types: './index.d.ts',
    dependencies: { valibot: source.dependencies.valibot },
  };
}

/** The `@svc/client` package in `dist/`, as published. */
export async function buildClient(): Promise<void> {
  const source = JSON.parse(readFileSync(join(clientDir, 'package.json'), 'utf8')) as Manifest;
  rmSync(packageDir, { recursive: true, force: true });
  await rolldown({
    input: { index: join(clientDir, 'src', 'index.ts') },
    platform: 'node',
    external: ['valibot'],
    // The oldest Node the package's engines accept, where registry tests run it (tests/release.test.ts).
    transform: { target: 'node20' },
    plugins: [dts({ generator: 'tsgo', tsconfig: join(repoRoot, 'tsconfig.client.json') })],
    output: { dir: packageDir, format: 'es' },
    logLevel: 'warn',
    checks: { pluginTimings: false },
  });
  writeFileSync(join(packageDir, 'package.json'), `${JSON.stringify(publishedManifest(source), null, 2)}\n`);
  for (const file of ['README.md', 'CHANGELOG.md']) {
    if (existsSync(join(clientDir, file))) copyFileSync(join(clientDir, file), join(packageDir, file));
  }
}

/** The action's script as one ES module; the same inputs give the same bytes. */
export async function actionBundle(): Promise<string> {
  const result = await esbuild({
    entryPoints: [join(repoRoot, '.github', 'actions', 'preview', 'preview.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    write: false,
    banner: { js: '// Built from preview.ts and @svc/client by `npm run build:client`: do not edit.' },
    logLevel: 'warning',
  });
  return result.outputFiles[0]?.text ?? '';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildClient();
  mkdirSync(dirname(actionScript), { recursive: true });
  writeFileSync(actionScript, await actionBundle());
  process.stderr.write(`built ${packageDir} and ${actionScript}\n`);
}
