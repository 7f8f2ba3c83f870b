/** Published builds and the resolution of a source ref to one of them. */
import { Builds, ErrorCode } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { projectParam } from '../params.ts';
import { nameParam, repositoryParam } from '../query.ts';
import { list } from '../shapes.ts';

const tag = 'sources';
const byProject = { project: projectParam };

export const sourceOperations = {
  publishBuild: {
    method: 'post',
    path: '/v1/projects/{project}/builds',
    permission: 'build:publish',
    summary: 'Publish a CI build: which digest-pinned image a commit produced. Idempotent.',
    tag,
    params: byProject,
    body: Builds.PublishBuildBody,
    responses: {
      201: { description: 'Published.', json: Builds.BuildView },
      200: {
        description: 'Already published (same component, repository, commit and digest).',
        json: Builds.BuildView,
      },
    },
    errors: [ErrorCode.UnknownReference],
  },

  listBuilds: list(
    {
      path: '/v1/projects/{project}/builds',
      permission: 'build:read',
      summary: 'Published builds, newest first. Empty means CI has not published that revision yet.',
      tag,
      params: byProject,
    },
    { description: 'A page of builds.', json: Builds.BuildList },
    {
      component: v.optional(nameParam('Only this component.')),
      repository: v.optional(repositoryParam('Only this repository (owner/name).')),
      commit_sha: v.optional(
        v.pipe(
          v.string(),
          v.check((value) => /^[0-9a-f]{40}$/.test(value), 'must be a 40-character hex SHA'),
          v.description('Only this commit.'),
        ),
      ),
    },
  ),

  resolveSource: {
    method: 'get',
    path: '/v1/projects/{project}/sources/resolve',
    permission: 'build:read',
    summary:
      'Resolve a ref (branch, tag or full commit SHA) to its commit and the build CI published for it; 404 when none was published.',
    tag,
    params: byProject,
    query: v.object({
      repository: repositoryParam('owner/name (required).'),
      component: nameParam('Component (required).'),
      ref: v.pipe(
        v.string(),
        v.check((value) => v.is(Builds.PublishBuildBody.entries.ref, value), 'must be a git ref name'),
        v.description('main, refs/heads/main, v1.2.0, refs/tags/v1.2.0 or a full commit SHA (required).'),
      ),
    }),
    responses: {
      200: { description: 'The commit and its published build.', json: Builds.SourceResolutionView },
    },
    errors: [ErrorCode.UnknownReference],
  },
} as const satisfies Record<string, ApiOperation>;
