import { apiTimeouts, dynamodbCheck, runtimeFromEnvironment, sqsCheck, sqsDeadLetterQueue } from '@svc/aws';
import { Auth, Forge, jsonLog, type Log, type MetricsSink, observedCompositionStore } from '@svc/core';
import { forgeWiring, gitHubAppFromEnvironment } from '@svc/github';
import { lazyClusterFromEnvironment } from '@svc/kube/lazy';
import { type AppDeps, createApp } from './app.ts';
import { openIdProvider } from './auth-oidc.ts';

/**
 * The API wired from its environment. The auth mode must be explicit (`AUTH_MODE`, with
 * `AUTH_SETTINGS` and the mode's secrets); `dev` is refused unless the caller allows it, and the
 * Lambda entry never does.
 */
export function appFromEnvironment(
  env: Record<string, string | undefined>,
  options: {
    allowDev: boolean;
    /** Where log lines go; JSON on stdout by default. */
    log?: Log;
    /** Reports accepted compositions (the Lambda entry's embedded metrics). */
    metrics?: MetricsSink;
  },
): ReturnType<typeof createApp> {
  // First: it fills env with the function's linked secrets, the auth mode's among them.
  const runtime = runtimeFromEnvironment(env, { requireCursorKey: true, timeouts: apiTimeouts });
  const auth = Auth.parseAuthSettings(env, options);
  // The API replays dead jobs; the other functions never read the dead-letter queue.
  const { deadLetterQueueUrl } = runtime.names;
  if (!deadLetterQueueUrl) throw new Error('invalid environment: DEAD_LETTER_QUEUE_URL');
  const cluster = lazyClusterFromEnvironment(env);
  const forge = forgeWiring(gitHubAppFromEnvironment(env));
  const deps: AppDeps = {
    ...runtime.stores,
    compositions: options.metrics
      ? observedCompositionStore(runtime.stores.compositions, options.metrics)
      : runtime.stores.compositions,
    forge: forge.forge,
    forgeSettings: Forge.defaultForgeSettings,
    forgeConfiguration: forge.configuration,
    clock: runtime.clock,
    previewUrl: runtime.previewUrl,
    manifestLimits: runtime.manifestLimits,
    deadLetters: sqsDeadLetterQueue(runtime.clients.sqs, deadLetterQueueUrl),
    cluster,
    log: options.log ?? jsonLog((line) => process.stdout.write(`${line}\n`)),
    auth,
    ...(auth.mode === Auth.AuthMode.Oidc ? { identityProvider: openIdProvider(auth) } : {}),
    health: [
      dynamodbCheck(runtime.clients.dynamodb, runtime.names.tableName),
      sqsCheck(runtime.clients.sqs, runtime.names.jobQueueUrl),
      cluster.health,
    ],
    build: { release: env.SVC_RELEASE ?? 'dev', commit: env.SVC_COMMIT ?? 'unknown' },
    // The installation's secret (checked by runtimeFromEnvironment): every instance derives the same key.
    mcp: { secret: env.CURSOR_KEY ?? '' },
  };
  return createApp(deps);
}
