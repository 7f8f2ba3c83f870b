import type { installationOperations } from '@svc/contract';
import { pageOf } from '@svc/contract';
import { Compositions, type Forge, Installation } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

/** The operator's routes: the installation check, the dead-letter replay and the drain. */
export function installationHandlers(
  deps: Installation.InstallationDeps & Compositions.ReplayDeps & Forge.ForgeDeps,
): HandlersOf<typeof installationOperations> {
  return {
    checkInstallation: async (c, { body }) => c.json(await Installation.check(deps, body)),
    replayDeadLetters: async (c, { body }) =>
      c.json(await Compositions.replayDeadJobs(deps, c.get('identity'), body)),
    drainCompositions: async (c, { body, query }) =>
      c.json(await Installation.drain(deps, c.get('identity'), body, pageOf(query))),
  };
}
