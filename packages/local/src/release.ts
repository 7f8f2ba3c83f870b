/**
 * What `npm start` reports on `/version`: the service's release and the commit checked out, so a
 * report from a local run says what it ran. The release is `@svc/api`'s version, which changesets
 * keeps on one line with the published CLI and client (.changeset/config.json). Outside a git
 * checkout (an unpacked archive, no git installed) the commit is `unknown`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export function sourceBuild(root = repoRoot): { release: string; commit: string } {
  const manifest = join(root, 'packages', 'api', 'package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
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
