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
