/** The operator's routes: the installation check and the dead-letter replay (Admin only). */
import { Compositions, ErrorCode, Installation } from '@svc/core';
import type { ApiOperation } from '../operation.ts';

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
    responses: {
      200: {
        description:
          'Every check with its evidence; status is failed if any check failed, else incomplete if any is unknown, else passed.',
        json: Installation.InstallationReport,
      },
    },
    errors: [
      ErrorCode.Forbidden,
      ErrorCode.MalformedJson,
      ErrorCode.ValidationFailed,
      ErrorCode.UnknownReference,
      ErrorCode.UnsupportedMediaType,
      ErrorCode.PayloadTooLarge,
    ],
  },

  replayDeadLetters: {
    method: 'post',
    path: '/v1/admin/dead-letters/replay',
    permission: 'dead_letters:replay',
    summary:
      'Send dead jobs back to the job queue, the reason recorded on each composition (Admin only). A failed operation runs again from the step whose message died; with dry_run, only what would happen.',
    tag,
    body: Compositions.ReplayRequest,
    responses: {
      200: {
        description:
          'Each dead job taken from the queue and what was (or, in a dry run, would be) done with it.',
        json: Compositions.ReplayReport,
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
} as const satisfies Record<string, ApiOperation>;
