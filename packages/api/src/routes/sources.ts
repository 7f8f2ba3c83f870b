import { type BuildDeps, ErrorCode, resolveSource, SourceResolutionView } from '@svc/core';
import type { Registry } from '../registry.ts';
import { projectName } from './params.ts';

export function sourceRoutes(registry: Registry, deps: BuildDeps): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/sources/resolve',
      operationId: 'resolveSource',
      summary:
        'Resolve a ref (branch, tag or full commit SHA) to its commit and the build CI published for it; 404 when none was published.',
      tag: 'sources',
      query: [
        { name: 'repository', description: 'owner/name (required).', schema: { type: 'string' } },
        { name: 'component', description: 'Component (required).', schema: { type: 'string' } },
        {
          name: 'ref',
          description: 'main, refs/heads/main, v1.2.0, refs/tags/v1.2.0 or a full commit SHA (required).',
          schema: { type: 'string' },
        },
      ],
      responses: {
        200: { description: 'The commit and its published build.', schema: SourceResolutionView },
      },
      errors: [ErrorCode.InvalidQuery, ErrorCode.NotFound, ErrorCode.UnknownReference],
    },
    async (c) => c.json(await resolveSource(deps, projectName(c), c.req.query())),
  );
}
