export { listenNode } from './entries/node-server.ts';
export { serviceApp } from './runtime.ts';
export { createWebhookApp } from './webhook.ts';
