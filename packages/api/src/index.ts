export { createApp } from './app.ts';
export { listenNode } from './node-server.ts';
export { createWebhookApp } from './webhook.ts';
