/**
 * The local forge (a GitHub stand-in with the app installed on the demo repository) beside the
 * API, and the token its stand-in CI publishes builds with.
 */
import { Auth, type Log } from '@svc/core';
import type { LocalForge } from '@svc/local-forge';
import type { Services } from '@svc/wiring';
import { startStackForge } from '../forge.ts';
import type { Cleanups, StackOptions } from './options.ts';

export interface StackForge {
  /** Null when the stack runs without one. */
  forge: LocalForge | null;
  /** Outside dev mode the stand-in CI publishes with a machine token of its own, as CI does. */
  mintCiTokens(services: Pick<Services<unknown>, 'tokens' | 'clock'>): void;
}

export async function startForge(
  options: StackOptions,
  apiUrl: string,
  log: Log,
  cleanups: Cleanups,
): Promise<StackForge> {
  let ciToken: (() => Promise<string | null>) | undefined;
  const forgeOptions = options.forge === false ? null : (options.forge ?? {});
  const forge =
    forgeOptions &&
    (await startStackForge({
      stateDir: options.stateDir,
      apiUrl: () => apiUrl,
      token: () => ciToken?.() ?? Promise.resolve(null),
      forge: forgeOptions,
      log,
    }));
  if (forge) cleanups.push(() => forge.stop());
  const authMode = options.authMode ?? Auth.AuthMode.Dev;
  return {
    forge,
    mintCiTokens: (services) => {
      if (authMode === Auth.AuthMode.Dev || authMode === Auth.AuthMode.Anonymous) return;
      let minted: Promise<string> | undefined;
      // A publisher grant on the demo project, nothing else.
      ciToken = () =>
        (minted ??= Auth.mintToken(services.tokens, {
          name: 'local-ci',
          grants: [{ role: 'publisher', project: 'demo', repository: null }],
          createdBy: 'npm start',
          now: services.clock.now(),
          expiresAt: null,
        }).then((issued) => issued.token));
    },
  };
}
