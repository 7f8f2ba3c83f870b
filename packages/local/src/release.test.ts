import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceBuild } from './release.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const apiManifest = join('packages', 'api', 'package.json');
const release = JSON.parse(readFileSync(join(root, apiManifest), 'utf8')).version;

describe('sourceBuild', () => {
  it("reports the service's release (the API package's version) and the commit checked out", () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    expect(sourceBuild()).toEqual({ release: release, commit: head });
    expect(head).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reports an unknown commit outside a git checkout', () => {
    const unpacked = mkdtempSync(join(tmpdir(), 'svc-release-'));
    mkdirSync(join(unpacked, 'packages', 'api'), { recursive: true });
    copyFileSync(join(root, apiManifest), join(unpacked, apiManifest));
    expect(sourceBuild(unpacked)).toEqual({ release: release, commit: 'unknown' });
  });
});
