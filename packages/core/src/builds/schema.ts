import * as v from 'valibot';
import { parseImage } from '../images.ts';
import { ResourceName } from '../names.ts';
import { pageSchema } from '../paging.ts';

export const PublishBuildBody = v.strictObject({
  component: ResourceName,
  repository: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'repository must be owner/name'),
  ),
  commit_sha: v.pipe(
    v.string(),
    v.regex(/^[0-9a-f]{40}$/, 'commit_sha must be a full 40-character lowercase hex SHA'),
  ),
  ref: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(255),
    v.regex(/^[^\s~^:?*[\\]+$/, 'ref must be a git ref name'),
  ),
  image: v.pipe(
    v.string(),
    v.check(
      (image) => parseImage(image)?.digest != null,
      'image must be fully qualified and pinned by @sha256:<digest>',
    ),
  ),
});

export type PublishBuildBody = v.InferOutput<typeof PublishBuildBody>;

export const BuildView = v.object({
  id: v.string(),
  project: v.string(),
  component: v.string(),
  repository: v.string(),
  commit_sha: v.string(),
  ref: v.string(),
  image: v.string(),
  digest: v.string(),
  published_at: v.string(),
  published_by: v.string(),
});

export type Build = v.InferOutput<typeof BuildView>;

export const BuildList = pageSchema(BuildView);
