import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceBuild } from './release.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const rootVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;

describe('sourceBuild', () => {
  it("reports the service's package version and the commit checked out", () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    expect(sourceBuild()).toEqual({ release: rootVersion, commit: head });
    expect(head).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reports an unknown commit outside a git checkout', () => {
    const unpacked = mkdtempSync(join(tmpdir(), 'svc-release-'));
    copyFileSync(join(root, 'package.json'), join(unpacked, 'package.json'));
    expect(sourceBuild(unpacked)).toEqual({ release: rootVersion, commit: 'unknown' });
  });
});
