export { listenNode } from './node-server.ts';
export { serviceApp } from './runtime.ts';
export { createWebhookApp } from './webhook.ts';
