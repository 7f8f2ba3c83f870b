export { createApp } from './app.ts';
export { openIdProvider } from './auth-oidc.ts';

export { listenNode } from './node-server.ts';
export { createWebhookApp } from './webhook.ts';
