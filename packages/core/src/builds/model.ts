import { contentHash } from '../canonical.ts';
import { parseImage } from '../images.ts';
import type { PublishBuildBody } from './schema.ts';

/** Same project, component, repository, commit and digest → same id, so a CI retry publishes nothing new. */
export function buildId(project: string, body: PublishBuildBody): string {
  const digest = parseImage(body.image)?.digest ?? '';
  return `b-${contentHash([project, body.component, body.repository, body.commit_sha, digest]).slice(0, 24)}`;
}

export interface BuildFilter {
  component: string | null;
  repository: string | null;
  commit_sha: string | null;
}

/** One publication of a build for a ref: how `source resolve` finds the build a ref stands at. */
export interface SourceRef {
  project: string;
  component: string;
  repository: string;
  ref: string;
  build_id: string;
  commit_sha: string;
  published_at: string;
}
