import type { serviceOperations } from '@svc/contract';
import type { Auth, DependencyCheck, HealthReport, VersionView } from '@svc/core';
import { authWarning } from '../auth-server.ts';
import type { HandlersOf } from '../bind.ts';
import { probeDependencies } from '../health.ts';

/** The probes: each dependency with its latency, and the server's build. */
export function serviceHandlers(deps: {
  health: readonly DependencyCheck[];
  mode: Auth.AuthMode;
  release: { release: string; commit: string };
}): HandlersOf<typeof serviceOperations> {
  return {
    async getHealth(c) {
      const report = await probeDependencies(deps.health, ['dynamodb', 'sqs', 'cluster'], c.get('log'));
      const body: HealthReport = {
        status: report.healthy ? 'ok' : 'degraded',
        dependencies: report.dependencies,
        auth: { mode: deps.mode, warning: authWarning(deps.mode) },
      };
      return c.json(body, report.healthy ? 200 : 503);
    },
    getVersion: (c) =>
      c.json({ service: 'preview-composition-service', ...deps.release } satisfies VersionView),
  };
}
