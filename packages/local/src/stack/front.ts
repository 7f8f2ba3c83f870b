/**
 * The front of the stack: the API's server (listening before anything else, answering 503 until the
 * stack is whole), the webhook behind it, and oidc mode's identity provider.
 */
import { randomBytes } from 'node:crypto';
import { createWebhookApp, listenNode, serviceApp } from '@svc/api';
import { Auth } from '@svc/core';
import { localAuth } from '../auth.ts';
import type { LocalIdentityProvider } from '../identity-provider.ts';
import type { StackForge } from './forge.ts';
import type { StackFunctions } from './functions.ts';
import type { Cleanups, StackOptions } from './options.ts';

/** The API's server, up before the services: the API's origin is their settings'. */
export interface Front {
  apiUrl: string;
  /** Locally the webhook is mounted on the API's server; on AWS it is a function of its own. */
  serveWebhook(webhook: { fetch(request: Request): Response | Promise<Response> }): void;
  serve(app: ReturnType<typeof serviceApp>['app']): void;
}

export async function startFront(options: StackOptions, host: string, cleanups: Cleanups): Promise<Front> {
  let app: ReturnType<typeof serviceApp>['app'] | undefined;
  let webhook: Parameters<Front['serveWebhook']>[0] | undefined;
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
  return {
    apiUrl: `http://${host}:${typeof listening === 'object' && listening ? listening.port : options.port}`,
    serveWebhook: (served) => {
      webhook = served;
    },
    serve: (served) => {
      app = served;
    },
  };
}

/** The API and the webhook behind the listening server, and the local forge and provider told where they are. */
export function connectFront(
  front: Front,
  { forge, mintCiTokens }: StackForge,
  functions: Pick<StackFunctions, 'api' | 'webhook'>,
  auth: Auth.AuthSettings,
  identityProvider: LocalIdentityProvider | null,
  consoleRefreshMs: number | undefined,
): ReturnType<typeof serviceApp>['app'] {
  const { app } = serviceApp(functions.api, auth, {
    // One API process: a secret of its own for the agents' confirmations.
    mcp: { secret: randomBytes(32).toString('base64url') },
    // The console links a pull request to the local forge's page of it, not to github.com.
    ...(forge ? { forgeWebUrl: forge.url } : {}),
    ...(consoleRefreshMs === undefined ? {} : { refreshMs: consoleRefreshMs }),
  });
  front.serveWebhook(createWebhookApp(functions.webhook));
  identityProvider?.register(`${front.apiUrl}/auth/callback`);
  forge?.setWebhookUrl(`${front.apiUrl}/webhooks/forge`);
  mintCiTokens(functions.api);
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
