/**
 * Node entry: the API alone, against the table and queue named in the environment.
 * `AUTH_MODE=token AUTH_SETTINGS='{"public_origin":"https://svc.acme.io"}' TABLE_NAME=… JOB_QUEUE_URL=… DEAD_LETTER_QUEUE_URL=… PREVIEW_URL_TEMPLATE=… CURSOR_KEY=… node packages/api/src/entries/main.ts`
 */

import { SettingsError } from '@svc/core';
import { appFromEnvironment } from '../runtime.ts';
import { listenNode } from './node-server.ts';

try {
  const { app } = appFromEnvironment(process.env, { allowDev: true });
  const host = process.env.HOST ?? '127.0.0.1';
  const port = Number(process.env.PORT ?? 8081);
  await listenNode(app.fetch, host, port);
  console.log(`API listening on http://${host}:${port} (auth mode ${process.env.AUTH_MODE})`);
} catch (error) {
  if (error instanceof SettingsError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
