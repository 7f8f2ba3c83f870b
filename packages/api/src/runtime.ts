import { dynamodbCheck, runtimeFromEnvironment, sqsCheck } from '@svc/aws';
import { Auth, Forge } from '@svc/core';
import { forgeWiring, gitHubAppFromEnvironment } from '@svc/github';
import { clusterFromEnvironment } from '@svc/kube';
import { type AppDeps, createApp } from './app.ts';

export class AuthModeError extends Error {
  override name = 'AuthModeError';
}

/**
 * The API wired from its environment. The auth mode must be explicit (`AUTH_MODE`); `dev` is
 * refused unless the caller allows it, and the Lambda entry never does.
 */
export function appFromEnvironment(
  env: Record<string, string | undefined>,
  options: { allowDev: boolean },
): ReturnType<typeof createApp> {
  const mode = env.AUTH_MODE;
  if (mode !== Auth.AuthMode.Token && mode !== Auth.AuthMode.Dev) {
    throw new AuthModeError(
      `AUTH_MODE must be set explicitly to ${options.allowDev ? '"token" or "dev"' : '"token"'} (got ${mode === undefined ? 'nothing' : JSON.stringify(mode)}).`,
    );
  }
  if (mode === Auth.AuthMode.Dev && !options.allowDev) {
    throw new AuthModeError('AUTH_MODE=dev is for local development only and cannot be used here.');
  }
  const runtime = runtimeFromEnvironment(env);
  const cluster = clusterFromEnvironment(env);
  const forge = forgeWiring(gitHubAppFromEnvironment(env));
  const deps: AppDeps = {
    ...runtime.stores,
    forge: forge.forge,
    forgeSettings: Forge.defaultForgeSettings,
    forgeConfiguration: forge.configuration,
    clock: runtime.clock,
    previewUrl: runtime.previewUrl,
    cluster,
    log: (entry) => console.log(JSON.stringify(entry)),
    auth:
      mode === Auth.AuthMode.Dev
        ? { mode }
        : { mode, verifyToken: (token) => runtime.stores.tokens.verify(token, runtime.clock.now()) },
    health: [
      dynamodbCheck(runtime.clients.dynamodb, runtime.names.tableName),
      sqsCheck(runtime.clients.sqs, runtime.names.jobQueueUrl),
      cluster.health,
    ],
    build: { release: env.SVC_RELEASE ?? 'dev', commit: env.SVC_COMMIT ?? 'unknown' },
  };
  return createApp(deps);
}
