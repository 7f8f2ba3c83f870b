/** AWS Lambda entry of the API (API Gateway HTTP API). */
import { embeddedMetricsSink, lambdaLog } from '@svc/aws';
import { handle } from 'hono/aws-lambda';
import { appFromEnvironment } from '../runtime.ts';

const { app } = appFromEnvironment(process.env, {
  allowDev: false,
  log: lambdaLog('api'),
  metrics: embeddedMetricsSink('api', process.env),
});

export const handler = handle(app);
