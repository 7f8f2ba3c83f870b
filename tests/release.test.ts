/**
 * A release, as a team gets it: the published packages, from a registry, outside this workspace.
 * Builds and packs `@svc/cli` and `@svc/client` as the release workflow does, checks the tarballs
 * with publint and arethetypeswrong, publishes them to a Verdaccio of its own (no uplinks: nothing
 * but what the test put there can be installed), then, in a scratch project per Node major (20, 22
 * and 24), runs the install commands of docs/cli.md, `svc version`, and the TypeScript script of
 * docs/ci.md, type-checked against the installed declarations, against the local stack.
 *
 * The Node 20 and 22 binaries are the `node@20` and `node@22` packages of the npm registry,
 * installed once into the OS temporary folder (through the npm cache) and reused by later runs.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { type Stack, sourceBuild } from '@svc/local';
import { freePort, useTestStack } from '@svc/local/testing';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../packages/cli/test/helpers.ts';
import { buildClient } from '../packages/client/scripts/build.ts';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'svc-release-'));
const majors = ['20', '22', '24'] as const;
type Major = (typeof majors)[number];

/** The npm the machine has (its CLI script), to run with whichever Node a project uses. */
function machineNpm(): string {
  if (process.env.npm_execpath?.endsWith('npm-cli.js')) return process.env.npm_execpath;
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'npm'));
  const found = onPath.find((file) => existsSync(file));
  if (!found) throw new Error('no npm on PATH');
  return realpathSync(found);
}
const npmCli = machineNpm();

interface Registry {
  url: string;
  process: ChildProcess;
}

/** Verdaccio on a free port with a storage folder of its own; anyone may publish, no uplinks. */
async function startRegistry(): Promise<Registry> {
  const dir = join(work, 'registry');
  mkdirSync(dir);
  const port = await freePort();
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'storage: ./storage',
      'uplinks: {}',
      "packages: { '**': { access: $all, publish: $all } }",
      'log: { type: stdout, format: json, level: error }',
      '',
    ].join('\n'),
  );
  const verdaccio = join(repoRoot, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const child = spawn(
    process.execPath,
    [verdaccio, '--config', 'config.yaml', '--listen', `127.0.0.1:${port}`],
    {
      cwd: dir,
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}/`;
  // Seconds on an idle machine; a loaded one (the suite's other files) takes longer.
  const deadline = Date.now() + 45_000;
  for (;;) {
    const ready = await fetch(`${url}-/ping`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) return { url, process: child };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('Verdaccio did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `bin/node` of Node `major` from the `node@major` package, installed once into the temporary folder. */
async function nodeBinary(major: Major): Promise<string> {
  if (major === '24') return process.execPath;
  const prefix = join(tmpdir(), 'svc-release-test-node', major);
  const binary = join(prefix, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(binary)) {
    await run(
      process.execPath,
      [npmCli, 'install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `node@${major}`],
      { timeout: 120_000 },
    );
  }
  return binary;
}

/** An `npm` for the scratch projects: the machine's npm, run by the given Node. */
function npmFor(node: string, dir: string): string {
  const bin = join(dir, 'npm-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\nexec "${node}" "${npmCli}" "$@"\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  return bin;
}

/** The version line of the installable packages (one, changesets' fixed group). */
const version = (
  JSON.parse(readFileSync(join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string }
).version;

/** Packs the CLI and the client's built package (and valibot, the client's one dependency) into `work`. */
async function pack(): Promise<Record<'cli' | 'client' | 'valibot', string>> {
  await Promise.all([ensureBuilt(), buildClient()]);
  // One npm for the three: each start of npm costs more than a pack.
  const { stdout } = await run(process.execPath, [
    npmCli,
    'pack',
    join(repoRoot, 'packages', 'cli'),
    join(repoRoot, 'packages', 'client', 'dist'),
    join(repoRoot, 'node_modules', 'valibot'),
    '--pack-destination',
    work,
    '--json',
  ]);
  const tarball = (name: string) => {
    const packed = (JSON.parse(stdout) as { name: string; filename: string }[]).find((p) => p.name === name);
    if (!packed) throw new Error(`npm pack made no tarball of ${name}`);
    return join(work, packed.filename);
  };
  return { cli: tarball('@svc/cli'), client: tarball('@svc/client'), valibot: tarball('valibot') };
}

let stack: Stack;
let registry: Registry;
let tarballs: Awaited<ReturnType<typeof pack>>;
const nodes = {} as Record<Major, string>;
/** The scratch projects once the documented install has run in each. */
let installed: Promise<Record<Major, Project>>;

async function prepare() {
  const [packedTarballs, started] = await Promise.all([
    pack(),
    startRegistry(),
    ...majors.map(async (major) => {
      nodes[major] = await nodeBinary(major);
    }),
  ]);
  tarballs = packedTarballs;
  registry = started;
  const auth = `--${registry.url.replace(/^http:/, '')}:_authToken=release-test`;
  await Promise.all(
    Object.values(tarballs).map((tarball) =>
      run(process.execPath, [
        npmCli,
        'publish',
        tarball,
        '--registry',
        registry.url,
        auth,
        '--no-provenance',
      ]),
    ),
  );
  // The installs need only the registry: they run while the stack starts and the tarballs are
  // checked. The test reading the projects awaits them, and fails with their error.
  installed = installEverywhere();
  installed.catch(() => {});
}

// The stack reports the release in the workspace, as a deployed server reports its own.
useTestStack({ alongside: prepare, build: sourceBuild() }, (started) => {
  stack = started.stack;
});
afterAll(async () => {
  if (registry && registry.process.exitCode === null) {
    registry.process.kill();
    await once(registry.process, 'exit');
  }
  rmSync(work, { recursive: true, force: true });
});

/** The commands docs/cli.md gives for installing and pinning a release, with the test's registry and version. */
function documentedInstall(): string {
  const page = readFileSync(join(repoRoot, 'docs', 'cli.md'), 'utf8');
  const block = /<!-- the install tests\/release\.test\.ts runs -->\n\n```sh\n([\s\S]*?)```/.exec(page)?.[1];
  expect(block, 'docs/cli.md shows the install').toBeDefined();
  return (block ?? '')
    .replaceAll('https://npm.example.internal/', registry.url)
    .replace(/(@svc\/(?:cli|client))@\d+\.\d+\.\d+/g, `$1@${version}`);
}

/** The TypeScript script docs/ci.md shows. */
function documentedScript(): string {
  const page = readFileSync(join(repoRoot, 'docs', 'ci.md'), 'utf8');
  const block = /<!-- the script tests\/client\.test\.ts runs -->\n\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
  expect(block, 'docs/ci.md shows the script').toBeDefined();
  return block ?? '';
}

interface Project {
  dir: string;
  env: Record<string, string>;
}

/** A project of a team's own, outside the workspace, whose `npm` and `node` are Node `major`'s. */
function scratchProject(major: Major): Project {
  const dir = join(work, `project-node-${major}`);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'team-ci', private: true, type: 'module' }),
  );
  const global = join(dir, 'global');
  return {
    dir,
    env: {
      PATH: [join(global, 'bin'), npmFor(nodes[major], dir), dirname(nodes[major]), '/usr/bin', '/bin'].join(
        delimiter,
      ),
      HOME: dir,
      // Everything else it installs (valibot) comes from the same registry: nothing else is reachable.
      npm_config_registry: registry.url,
      npm_config_userconfig: join(dir, 'user.npmrc'),
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_prefix: global,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  };
}

/** docs/cli.md's install, in a scratch project per Node major, all at once. */
async function installEverywhere(): Promise<Record<Major, Project>> {
  const projects = Object.fromEntries(majors.map((major) => [major, scratchProject(major)])) as Record<
    Major,
    Project
  >;
  await Promise.all(majors.map((major) => sh(projects[major], documentedInstall())));
  return projects;
}

function sh(project: Project, script: string, env: Record<string, string> = {}) {
  return run('bash', ['-eo', 'pipefail', '-c', script], {
    cwd: project.dir,
    env: { ...project.env, ...env },
    timeout: 90_000,
  });
}

describe('the published packages', () => {
  it('pass publint and arethetypeswrong as packed', async () => {
    for (const tarball of [tarballs.cli, tarballs.client]) {
      const bytes = readFileSync(tarball);
      const { messages, pkg } = await publint({
        pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
        strict: true,
      });
      expect(messages.map((message) => formatMessage(message, pkg, { color: false }))).toEqual([]);
    }
    const attw = join(repoRoot, 'node_modules', '.bin', 'attw');
    // ESM only: `require` of it works where Node loads ES modules by require (20.19, 22.12 and later).
    await run(attw, [tarballs.client, '--profile', 'esm-only', '--no-color']);
  });

  it('the client depends on nothing unpublished, and its types name no workspace package', () => {
    const manifest = JSON.parse(
      readFileSync(join(repoRoot, 'packages', 'client', 'dist', 'package.json'), 'utf8'),
    );
    expect(Object.keys(manifest.dependencies)).toEqual(['valibot']);
    const types = readFileSync(join(repoRoot, 'packages', 'client', 'dist', 'index.d.ts'), 'utf8');
    expect(types).not.toMatch(/from ['"]@svc\//);
  });

  it('install from the registry as docs/cli.md says, and run svc version and the docs/ci.md script, on Node 20, 22 and 24', async () => {
    const projects = await installed;
    for (const major of majors) {
      const { dir } = projects[major];
      expect(readFileSync(join(dir, '.npmrc'), 'utf8')).toContain(`@svc:registry=${registry.url}`);
      expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies).toEqual({
        '@svc/client': version,
      });
    }

    // Type-checked once against the declarations the package installed, and run as the JavaScript
    // tsc emits: Node 20 strips no types. skipLibCheck spares checking @types/node's and valibot's
    // own declarations (nine tenths of the check, and not this package's); the package's are
    // checked in full all the same, as a source file of the project, so an error in them fails.
    writeFileSync(join(projects[24].dir, 'preview.mts'), documentedScript());
    copyFileSync(
      join(projects[24].dir, 'node_modules', '@svc', 'client', 'index.d.ts'),
      join(projects[24].dir, 'svc-client-declarations.ts'),
    );
    await run(
      join(repoRoot, 'node_modules', '.bin', 'tsc'),
      [
        ...['--strict', '--exactOptionalPropertyTypes', '--module', 'nodenext', '--target', 'es2022'],
        ...['--types', 'node', '--typeRoots', join(repoRoot, 'node_modules', '@types'), '--skipLibCheck'],
        ...['preview.mts', 'svc-client-declarations.ts'],
      ],
      { cwd: projects[24].dir },
    );
    const script = readFileSync(join(projects[24].dir, 'preview.mjs'), 'utf8');

    await Promise.all(
      majors.map(async (major) => {
        const project = projects[major];
        const env = { SVC_API_URL: stack.apiUrl };
        const report = JSON.parse((await sh(project, 'svc version', env)).stdout);
        expect(report.cli, `Node ${major}`).toMatchObject({
          release: version,
          node: expect.stringMatching(new RegExp(`^v${major}\\.`)),
        });
        expect(report.server, `Node ${major}`).toMatchObject({ release: version });
        expect(report.compatible, `Node ${major}`).toBe(true);

        writeFileSync(join(project.dir, 'preview.mjs'), script);
        const ran = await sh(project, 'node preview.mjs', {
          ...env,
          CI_RUN_ID: `release-node-${major}`,
          IMAGE: 'registry.example.com/demo/service-b:2.0.0',
        });
        expect(JSON.parse(ran.stdout), `Node ${major}`).toMatchObject({
          passed: true,
          id: expect.stringMatching(/^c-/),
        });
      }),
    );
  });
});
