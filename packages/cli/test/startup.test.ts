/**
 * A command loads only what it runs: `svc version` reads no credential file, loads none of Node's
 * crypto, file or process modules, and never reads the MCP bundle, which `svc mcp` alone needs.
 * (`npm run bench:cli` measures what that buys; docs/cli.md has the figures.)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, repoRoot } from './helpers.ts';

const cliDir = join(repoRoot, 'packages', 'cli');

/** A copy of the package holding the launcher and every bundle but the MCP one. */
function installWithoutMcp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-no-mcp-'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'dist'));
  for (const file of ['bin/svc.js', 'bin/package.json', 'dist/svc.cjs', 'dist/commands.cjs']) {
    copyFileSync(join(cliDir, file), join(dir, file));
  }
  return dir;
}

/**
 * Runs the copy with a preload that writes, as the process exits, the built-in modules it loaded
 * (`process.moduleLoadList`) and the files it required.
 */
function runRecorded(dir: string, args: string[]) {
  const report = join(dir, `loaded-${args.join('-')}.json`);
  const preload = join(dir, 'record-loads.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify({
      builtins: process.moduleLoadList, files: Object.keys(require.cache) })));`,
  );
  const result = spawnSync(process.execPath, ['--require', preload, join(dir, 'bin', 'svc.js'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: dir, SVC_API_URL: 'http://127.0.0.1:9' },
  });
  const loaded = JSON.parse(readFileSync(report, 'utf8')) as { builtins: string[]; files: string[] };
  return { result, loaded };
}

beforeAll(ensureBuilt);

describe('svc start-up', () => {
  it('svc version loads no command group, crypto, credential-file, process or MCP code', () => {
    const dir = installWithoutMcp();
    const { result, loaded } = runRecorded(dir, ['version']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      server: null,
      server_problem: { code: 'api_unreachable' },
    });
    expect(Array.isArray(loaded.builtins)).toBe(true);
    for (const unneeded of ['crypto', 'fs/promises', 'child_process']) {
      expect(loaded.builtins).not.toContain(`NativeModule ${unneeded}`);
    }
    expect(loaded.builtins).toContain('NativeModule http');
    expect(loaded.files.filter((file) => file.startsWith(join(dir, 'dist')))).toEqual([
      join(dir, 'dist', 'svc.cjs'),
    ]);
  });

  it('svc mcp is the one command that reads the MCP bundle', () => {
    const dir = installWithoutMcp();
    const { result } = runRecorded(dir, ['mcp']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({
      code: 'cli_internal_error',
    });
    expect(result.stderr).toContain('mcp.cjs');
  });
});
