import type { installationOperations } from '@svc/contract';
import { Compositions, Installation } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

/** The operator's routes: the installation check and the dead-letter replay. */
export function installationHandlers(
  deps: Installation.InstallationDeps & Compositions.ReplayDeps,
): HandlersOf<typeof installationOperations> {
  return {
    checkInstallation: async (c, { body }) => c.json(await Installation.check(deps, body)),
    replayDeadLetters: async (c, { body }) =>
      c.json(await Compositions.replayDeadJobs(deps, c.get('identity'), body)),
  };
}
