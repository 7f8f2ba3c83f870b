import { ErrorCode, Installation } from '@svc/core';
import type { Registry } from '../registry.ts';
import { readJson } from '../request.ts';

export function installationRoutes(registry: Registry, deps: Installation.InstallationDeps): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/installation/check',
      operationId: 'checkInstallation',
      permission: 'installation:check',
      summary:
        "Read-only preflight of the server's cluster for the baselines an installation specification names (Admin only). Failed checks are still a 200; see status.",
      tag: 'installation',
      body: Installation.InstallationSpec,
      responses: {
        200: {
          description:
            'Every check with its evidence; status is failed if any check failed, else incomplete if any is unknown, else passed.',
          schema: Installation.InstallationReport,
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
    async (c) => c.json(await Installation.check(deps, await readJson(c))),
  );
}
