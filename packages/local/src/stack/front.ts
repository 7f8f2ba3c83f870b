/**
 * The front of the stack: the API's server (listening before anything else, answering 503 until the
 * stack is whole), the webhook behind it, the local forge, and oidc mode's identity provider.
 */
import { randomBytes } from 'node:crypto';
import { createWebhookApp, listenNode, serviceApp } from '@svc/api';
import { Auth, type Log } from '@svc/core';
import type { LocalForge } from '@svc/local-forge';
import type { Services } from '@svc/wiring';
import { localAuth } from '../auth.ts';
import { startStackForge } from '../forge.ts';
import type { LocalIdentityProvider } from '../identity-provider.ts';
import type { StackFunctions } from './functions.ts';
import type { Cleanups, StackOptions } from './options.ts';

/** The API's server and the local forge, up before the services: the API's origin is their settings'. */
export interface Front {
  apiUrl: string;
  forge: LocalForge | null;
  /** Locally the webhook is mounted on the API's server; on AWS it is a function of its own. */
  serveWebhook(webhook: { fetch(request: Request): Response | Promise<Response> }): void;
  /** Outside dev mode the stand-in CI publishes with a machine token of its own, as CI does. */
  mintCiTokens(services: Pick<Services<unknown>, 'tokens' | 'clock'>): void;
  serve(app: ReturnType<typeof serviceApp>['app']): void;
}

export async function startFront(
  options: StackOptions,
  host: string,
  log: Log,
  cleanups: Cleanups,
): Promise<Front> {
  let app: ReturnType<typeof serviceApp>['app'] | undefined;
  let webhook: Parameters<Front['serveWebhook']>[0] | undefined;
  let ciToken: (() => Promise<string | null>) | undefined;
  let apiUrl = '';
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
  const starting = () => new Response('starting', { status: 503 });
  const server = await listenNode(
    (request, env) =>
      new URL(request.url).pathname.startsWith('/webhooks/')
        ? (webhook?.fetch(request) ?? starting())
        : (app?.fetch(request, env) ?? starting()),
    host,
    options.port ?? 8081,
  );
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const listening = server.address();
  apiUrl = `http://${host}:${typeof listening === 'object' && listening ? listening.port : options.port}`;
  const authMode = options.authMode ?? Auth.AuthMode.Dev;
  return {
    apiUrl,
    forge,
    serveWebhook: (served) => {
      webhook = served;
    },
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
    serve: (served) => {
      app = served;
    },
  };
}

/** The API and the webhook behind the listening server, and the local forge and provider told where they are. */
export function connectFront(
  front: Front,
  functions: Pick<StackFunctions, 'api' | 'webhook'>,
  auth: Auth.AuthSettings,
  identityProvider: LocalIdentityProvider | null,
): ReturnType<typeof serviceApp>['app'] {
  const { app } = serviceApp(functions.api, auth, {
    // One API process: a secret of its own for the agents' confirmations.
    mcp: { secret: randomBytes(32).toString('base64url') },
    // The console links a pull request to the local forge's page of it, not to github.com.
    ...(front.forge ? { forgeWebUrl: front.forge.url } : {}),
  });
  front.serveWebhook(createWebhookApp(functions.webhook));
  identityProvider?.register(`${front.apiUrl}/auth/callback`);
  front.forge?.setWebhookUrl(`${front.apiUrl}/webhooks/forge`);
  front.mintCiTokens(functions.api);
  return app;
}

/** `localAuth`'s variables, and oidc mode's identity provider, stopped with the stack. */
export async function startAuth(
  options: StackOptions,
  host: string,
  publicOrigin: string,
  cleanups: Cleanups,
) {
  const auth = await localAuth(
    { mode: options.authMode ?? Auth.AuthMode.Dev, ...options.auth },
    { host, publicOrigin },
  );
  const provider = auth.identityProvider;
  if (provider) cleanups.push(() => provider.stop());
  return auth;
}
