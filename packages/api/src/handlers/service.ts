import type { serviceOperations } from '@svc/contract';
import { type Auth, Health, type VersionView } from '@svc/core';
import type { Context } from 'hono';
import type { HandlersOf } from '../bind.ts';
import type { AppEnv } from '../env.ts';
import type { HealthProbe } from '../health.ts';
import { authWarning } from '../sign-in/server.ts';

/**
 * The probes: each dependency with its latency, and the server's build. A caller the auth mode
 * identifies gets a fresh round with each cluster by name; anyone else the last few seconds' round,
 * with the clusters folded into one entry.
 */
export function serviceHandlers(deps: {
  health: HealthProbe;
  /** Whether the mode identifies the caller (a credential it accepts, or a mode that asks none). */
  identified: (c: Context<AppEnv>) => Promise<boolean>;
  mode: Auth.AuthMode;
  release: { release: string; commit: string };
}): HandlersOf<typeof serviceOperations> {
  return {
    async getHealth(c) {
      const identified = await deps.identified(c);
      const round = await (identified ? deps.health.fresh : deps.health.recent)(c.get('log'));
      const body: Health.HealthReport = {
        status: round.healthy ? 'ok' : 'degraded',
        dependencies: identified ? round.dependencies : Health.anonymousDependencies(round.dependencies),
        auth: { mode: deps.mode, warning: authWarning(deps.mode) },
      };
      return c.json(body, round.healthy ? 200 : 503);
    },
    getVersion: (c) =>
      c.json({ service: 'preview-composition-service', ...deps.release } satisfies VersionView),
  };
}
