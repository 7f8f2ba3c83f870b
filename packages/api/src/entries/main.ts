/**
 * Node entry: the API alone, against the table and queue named in the environment, on `HOST`:`PORT`
 * (127.0.0.1:8081 by default).
 * `AUTH_MODE=token AUTH_SETTINGS='{"public_origin":"https://svc.acme.io"}' TABLE_NAME=… JOB_QUEUE_URL=… DEAD_LETTER_QUEUE_URL=… PREVIEW_URL_TEMPLATE=… CURSOR_KEY=… node packages/api/src/entries/main.ts`
 */

import { SettingsError } from '@svc/core';
import { NodeServiceSettings, settingsFromEnvironment } from '@svc/wiring';
import { appFromSettings } from '../runtime.ts';
import { listenNode } from './node-server.ts';

try {
  const settings = settingsFromEnvironment(NodeServiceSettings, process.env);
  const { app } = appFromSettings(settings);
  const { host, port } = settings.server;
  await listenNode(app.fetch, host, port);
  console.log(`API listening on http://${host}:${port} (auth mode ${settings.auth.mode})`);
} catch (error) {
  if (error instanceof SettingsError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
