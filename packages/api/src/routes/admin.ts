import { Compositions, ErrorCode } from '@svc/core';
import type { Registry } from '../registry.ts';
import { readJson } from '../request.ts';

export function adminRoutes(registry: Registry, deps: Compositions.ReplayDeps): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/admin/dead-letters/replay',
      operationId: 'replayDeadLetters',
      // The installation's Admin: the permission of the other installation-wide operator route.
      permission: 'installation:check',
      summary:
        'Send dead jobs back to the job queue, the reason recorded on each composition (Admin only). A failed operation runs again from the step whose message died; with dry_run, only what would happen.',
      tag: 'installation',
      body: Compositions.ReplayRequest,
      responses: {
        200: {
          description:
            'Each dead job taken from the queue and what was (or, in a dry run, would be) done with it.',
          schema: Compositions.ReplayReport,
        },
      },
      errors: [
        ErrorCode.Forbidden,
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.UnsupportedMediaType,
        ErrorCode.PayloadTooLarge,
      ],
    },
    async (c) => c.json(await Compositions.replayDeadJobs(deps, c.get('identity'), await readJson(c))),
  );
}
