/**
 * `svc version`, `--help` on every command (flags with defaults), and the bundle on Node 20. The
 * help texts are read through the CLI's entry in process; `-h` after other flags runs the executable.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Stack, sourceBuild } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, type Json, recordingServer, svc, svcInProcess } from './helpers.ts';

/** The build `npm start` reports: this checkout's version and commit. */
const build = sourceBuild();
let stack: Stack;
useTestStack({ alongside: ensureBuilt, build }, (started) => {
  stack = started.stack;
});

describe('svc version', () => {
  it("prints the CLI's release and commit and the server's GET /version, both of this checkout", async () => {
    const result = await svc(['version'], { apiUrl: stack.apiUrl });
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toEqual({
      cli: {
        // One version line (changesets' fixed group): the CLI's release is the server's.
        release: build.release,
        commit: build.commit === 'unknown' ? 'unknown' : build.commit.slice(0, 12),
        node: process.version,
      },
      api_url: stack.apiUrl,
      server: { service: 'preview-composition-service', ...build },
      server_problem: null,
      compatible: true,
    });
  });

  it('says when the server is of another major, on stderr and as compatible: false', async () => {
    const other = await recordingServer(() => ({
      status: 200,
      body: { service: 'preview-composition-service', release: '999.0.0', commit: 'abc1234' },
    }));
    try {
      const result = await svc(['version'], { apiUrl: other.url });
      expect(result.code).toBe(0);
      expect(result.json()).toMatchObject({ server: { release: '999.0.0' }, compatible: false });
      expect(result.stderr).toContain('of different majors');
    } finally {
      await other.close();
    }
  });

  it('still prints the CLI build when the server is unreachable, exit 0', async () => {
    const result = await svc(['version'], { apiUrl: 'http://127.0.0.1:9' });
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ server: null, server_problem: { code: 'api_unreachable' } });
  });
});

describe('--help', () => {
  /** Each command's help, asked once for the whole file. */
  const answers = new Map<string, ReturnType<typeof svcInProcess>>();
  const help = (path: string[]) => {
    const key = path.join(' ');
    if (!answers.has(key)) answers.set(key, svcInProcess([...path, '--help']));
    return answers.get(key) as ReturnType<typeof svcInProcess>;
  };

  /** Every command, found by walking the tree the way a program would: from `svc --help`. */
  async function commands(): Promise<string[][]> {
    const walk = async (path: string[]): Promise<string[][]> => {
      const result = await help(path);
      expect(result.code, result.stderr).toBe(0);
      const described = result.json();
      if (!described.commands) return [path];
      const children = described.commands as { name: string }[];
      return (await Promise.all(children.map((child) => walk(child.name.split(' '))))).flat();
    };
    return walk([]);
  }

  it('every command describes its flags with defaults: text on stderr, JSON on stdout', async () => {
    const all = await commands();
    expect(all.map((path) => path.join(' '))).toEqual(
      expect.arrayContaining([
        'composition plan',
        'composition create',
        'composition wait',
        'composition update',
        'composition get',
        'composition inspect',
        'composition endpoints',
        'composition logs',
        'composition events',
        'composition diagnosis',
        'composition verification',
        'composition destroy',
        'composition list',
        'catalog validate',
        'catalog apply',
        'source list',
        'auth status',
        'auth login',
        'auth logout',
        'version',
      ]),
    );
    for (const path of all) {
      const result = await help(path);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`svc ${path.join(' ')} — `);
      expect(result.stderr).toContain('Exit codes:');
      const described = result.json();
      expect(described.command).toBe(`svc ${path.join(' ')}`);
      for (const flag of described.flags as Json[]) expect(result.stderr).toContain(flag.name);
    }
  });

  it("a group lists each command with that command's own summary", async () => {
    const walk = async (path: string[]): Promise<Json> => {
      const result = await help(path);
      const described = result.json();
      for (const child of (described.commands ?? []) as Json[]) {
        const own = await walk(child.name.split(' '));
        expect(child.summary, child.name).toBe(own.summary);
        expect(result.stderr).toContain(`${child.name.split(' ').at(-1)}  `);
        expect(result.stderr).toContain(own.summary);
      }
      return described;
    };
    await walk([]);
  });

  it.each([
    ['composition create', '--project', 'demo'],
    [
      'composition create',
      '--baseline',
      "the project's default_baseline, as the server decides (staging in the local demo)",
    ],
    [
      'composition create',
      '--component',
      "the project's component named like the image (service-b in the local demo); said on stderr",
    ],
    [
      'composition update',
      '--component',
      "the project's component named like the image (service-b in the local demo); said on stderr",
    ],
    ['composition wait', '--timeout', '30s'],
    ['composition logs', '--component', 'service-b'],
    ['composition logs', '--tail-lines', '200'],
    ['composition logs', '--max-bytes', '65536'],
  ])('svc %s --help shows %s with its default', async (command, flag, value) => {
    const result = await help(command.split(' '));
    const described = result.json();
    expect(described.flags.find((f: Json) => f.name === flag)).toMatchObject({ default: value });
    expect(result.stderr).toContain(`default: ${value}`);
  });

  it('-h works after other flags too', async () => {
    const result = await svc(['composition', 'create', '--name', 'x', '-h']);
    expect(result.code).toBe(0);
    expect(result.json().command).toBe('svc composition create');
  });
});

describe('the bundle on an older system Node', () => {
  const system = ['/usr/bin/node', '/usr/local/bin/node'].find(
    (path) => existsSync(path) && execFileSync(path, ['--version'], { encoding: 'utf8' }).startsWith('v20.'),
  );

  it(`runs on Node 20 (${system ?? 'no Node 20 on this machine: the test runner’s Node stands in'})`, async () => {
    const node = system ?? process.execPath;
    const version = await svc(['version'], { apiUrl: stack.apiUrl, node });
    expect(version.code, version.stderr).toBe(0);
    expect(version.json().cli.node).toBe(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim());
    const created = await svc(['composition', 'create', '--name', 'old-node', '--inherit-all'], {
      apiUrl: stack.apiUrl,
      node,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(created.json().phase).toBe('created');
  });
});
