/** The operator's routes: the installation check, the dead-letter replay and the drain (Admin only). */
import { Compositions, ErrorCode, Installation } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { integerParam, pageParams } from '../query.ts';

const tag = 'installation';

export const installationOperations = {
  checkInstallation: {
    method: 'post',
    path: '/v1/installation/check',
    permission: 'installation:check',
    summary:
      "Read-only preflight of the server's cluster for the baselines an installation specification names (Admin only). Failed checks are still a 200; see status.",
    tag,
    body: Installation.InstallationSpec,
    bodyOptional: true,
    responses: {
      200: {
        description:
          'Every check with its evidence; status is failed if any check failed, else incomplete if any is unknown, else passed.',
        json: Installation.InstallationReport,
      },
    },
    errors: [ErrorCode.UnknownReference],
  },

  replayDeadLetters: {
    method: 'post',
    path: '/v1/admin/dead-letters/replay',
    permission: 'dead_letters:replay',
    summary:
      'Send dead jobs back to the job queue, the reason recorded on each composition (Admin only). A failed operation runs again from the step whose message died; with dry_run, only what would happen.',
    tag,
    body: Compositions.ReplayRequest,
    bodyOptional: true,
    responses: {
      200: {
        description:
          'Each dead job taken from the queue and what was (or, in a dry run, would be) done with it.',
        json: Compositions.ReplayReport,
      },
    },
  },

  drainCompositions: {
    method: 'post',
    path: '/v1/admin/drain',
    permission: 'installation:drain',
    summary:
      "Destroy every live composition of the stage, or of one of its clusters, as DELETE does (Admin only): one page per call, newest first; a composition whose destroy is under way is left alone, so a drain can be run again. With dry_run, only what would be destroyed. Run it before a cluster leaves the stage's settings or the stage is removed.",
    tag,
    query: v.object({
      limit: v.optional(integerParam({ min: 1, max: 100 }, 'Compositions per page (default 50, max 100).')),
      after: pageParams.after,
    }),
    body: Installation.DrainRequest,
    bodyOptional: true,
    responses: {
      200: {
        description:
          'The page of live compositions drained, each with what was (or, in a dry run, would be) done, and the next page.',
        json: Installation.DrainReport,
      },
    },
    errors: [ErrorCode.UnknownReference],
  },
} as const satisfies Record<string, ApiOperation>;
