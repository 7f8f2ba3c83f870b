/** AWS Lambda entry of the webhook (its own function URL): only POST /webhooks/forge, nothing else wired. */
import { embeddedMetricsSink, lambdaLog, runtimeFromEnvironment } from '@svc/aws';
import { Forge, ServiceMetric } from '@svc/core';
import { webhookVerifierFromEnvironment } from '@svc/github';
import { handle } from 'hono/aws-lambda';
import { createWebhookApp } from './webhook.ts';

const runtime = runtimeFromEnvironment(process.env);
const metrics = embeddedMetricsSink('webhook');
const app = createWebhookApp({
  forgeStore: runtime.stores.forgeStore,
  jobs: runtime.stores.jobs,
  clock: runtime.clock,
  forgeSettings: Forge.defaultForgeSettings,
  log: lambdaLog('webhook'),
  verify: webhookVerifierFromEnvironment(process.env),
});
const serve = handle(app);

/** Deliveries stored (202) and refused for their signature (401): the webhook alarms read these. */
export const handler: typeof serve = async (event, context) => {
  const response = await serve(event, context);
  if (response.statusCode === 202) metrics.count(ServiceMetric.WebhookDeliveriesAccepted);
  if (response.statusCode === 401) metrics.count(ServiceMetric.WebhookDeliveriesRejected);
  return response;
};
