/**
 * What `npm start` reports on `/version`: the service's package version and the commit checked out,
 * so a report from a local run says what it ran. Outside a git checkout (an unpacked archive, no
 * git installed) the commit is `unknown`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export function sourceBuild(root = repoRoot): { release: string; commit: string } {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { release: version, commit: headCommit(root) };
}

function headCommit(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}
