import * as v from 'valibot';

/**
 * `GET /version`: the server's release and commit. A module of its own, so that `svc version`
 * loads this schema and nothing of the domain (docs/cli.md, "Start-up time").
 */
export const VersionView = v.object({
  service: v.literal('preview-composition-service'),
  release: v.string(),
  commit: v.string(),
});
export type VersionView = v.InferOutput<typeof VersionView>;

/** The line of releases that keep one another's interface: the major, or `0.<minor>` before 1.0.0. */
function releaseLine(release: string): string | null {
  const match = /^(\d+)\.(\d+)\.\d+(?:[-+].*)?$/.exec(release);
  if (!match) return null;
  return match[1] === '0' ? `0.${match[2]}` : (match[1] ?? null);
}

/**
 * Whether a CLI and a server of these releases work together (docs/cli.md, "Versions"): they do
 * within one major, whichever is newer; across a major they may not. Null when either release is
 * not a version (a CLI run from source reports `dev`).
 */
export function compatibleReleases(cli: string, server: string): boolean | null {
  const [a, b] = [releaseLine(cli), releaseLine(server)];
  return a === null || b === null ? null : a === b;
}
