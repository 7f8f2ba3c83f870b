/** AWS Lambda entry of the webhook (its own function URL): only POST /webhooks/forge, nothing else wired. */
import { runtimeFromEnvironment } from '@svc/aws';
import { Forge } from '@svc/core';
import { forgeWiring, gitHubAppFromEnvironment } from '@svc/github';
import { handle } from 'hono/aws-lambda';
import { createWebhookApp } from './webhook.ts';

const runtime = runtimeFromEnvironment(process.env);
const app = createWebhookApp({
  forgeStore: runtime.stores.forgeStore,
  jobs: runtime.stores.jobs,
  clock: runtime.clock,
  forgeSettings: Forge.defaultForgeSettings,
  log: (entry) => console.log(JSON.stringify(entry)),
  verify: forgeWiring(gitHubAppFromEnvironment(process.env)).verify,
});

export const handler = handle(app);
