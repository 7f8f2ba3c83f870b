/** AWS Lambda entry of the webhook (its own function URL): only POST /webhooks/forge, nothing else wired. */
import { embeddedMetricsSink, lambdaLog } from '@svc/aws';
import { ServiceMetric } from '@svc/core';
import { settingsFromEnvironment, WebhookSettings, wireWebhook } from '@svc/wiring';
import { handle } from 'hono/aws-lambda';
import { createWebhookApp } from '../webhook.ts';

const settings = settingsFromEnvironment(WebhookSettings, process.env);
const metrics = embeddedMetricsSink('webhook', process.env);
const app = createWebhookApp(wireWebhook(settings, { log: lambdaLog('webhook') }));
const serve = handle(app);

/** Deliveries stored (202) and refused for their signature (401): the webhook alarms read these. */
export const handler: typeof serve = async (event, context) => {
  const response = await serve(event, context);
  if (response.statusCode === 202) metrics.count(ServiceMetric.WebhookDeliveriesAccepted);
  if (response.statusCode === 401) metrics.count(ServiceMetric.WebhookDeliveriesRejected);
  return response;
};
