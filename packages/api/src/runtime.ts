/**
 * The API's composition: its settings parsed once (every part: the auth mode, the cluster, the
 * app), its services wired as the worker's and the local stack's are, the app built on them.
 */
import { apiTimeouts } from '@svc/aws';
import { Auth, jsonLog, type Log, type MetricsSink, SettingsError } from '@svc/core';
import { lazyCluster } from '@svc/kube/lazy';
import { ServiceSettings, type Services, settingsFromEnvironment, wireServices } from '@svc/wiring';
import { createApp } from './app.ts';
import type { McpSettings } from './mcp.ts';
import { openIdProvider } from './sign-in/oidc.ts';

/**
 * The API wired from its environment. The auth mode must be explicit (`AUTH_MODE`, with
 * `AUTH_SETTINGS` and the mode's secrets); `dev` is refused unless the caller allows it, and the
 * Lambda entry never does.
 */
export function appFromEnvironment(
  env: Record<string, string | undefined>,
  options: { allowDev: boolean } & WiringOptions,
): ReturnType<typeof createApp> {
  return appFromSettings(settingsFromEnvironment(ServiceSettings(options), env), options);
}

interface WiringOptions {
  /** Where log lines go; JSON on stdout by default. */
  log?: Log;
  /** Reports accepted compositions (the Lambda entry's embedded metrics). */
  metrics?: MetricsSink;
}

/** The API on its parsed settings (the Node entry's parse names where it listens too). */
export function appFromSettings(
  settings: ServiceSettings,
  options: WiringOptions = {},
): ReturnType<typeof createApp> {
  const services = wireServices(settings, {
    // Loads @kubernetes/client-node on the first cluster call: most cold starts never need it.
    cluster: lazyCluster,
    // The API publishes and subscribes nothing: its bundle carries no SNS client.
    messaging: () => null,
    timeouts: apiTimeouts,
    log: options.log ?? jsonLog((line) => process.stdout.write(`${line}\n`)),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  // The installation's secret (ServiceSettings requires it): every instance derives the same key.
  return serviceApp(services, settings.auth, { mcp: { secret: settings.aws.cursorKey ?? '' } });
}

/** The app on wired services: the deployed entries' and the local stack's alike. */
export function serviceApp(
  services: Services<unknown>,
  auth: Auth.AuthSettings,
  options: {
    mcp: McpSettings;
    /** Where the console links pull requests (the local forge locally). */
    forgeWebUrl?: string;
    /** How often the console's live parts refresh, in milliseconds (tests make it short). */
    refreshMs?: number;
  },
): ReturnType<typeof createApp> {
  const { deadLetters } = services;
  // The API replays dead jobs: its settings (ServiceSettings) require the queue.
  if (!deadLetters) throw new SettingsError([{ variable: 'DEAD_LETTER_QUEUE_URL', message: 'is not set' }]);
  return createApp({
    ...services,
    deadLetters,
    auth,
    ...(auth.mode === Auth.AuthMode.Oidc ? { identityProvider: openIdProvider(auth) } : {}),
    ...options,
  });
}
