/** AWS Lambda entry (API Gateway HTTP API and the webhook's function URL). */
import { handle } from 'hono/aws-lambda';
import { appFromEnvironment } from './runtime.ts';

const { app } = appFromEnvironment(process.env, { allowDev: false });

export const handler = handle(app);
