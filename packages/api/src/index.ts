export { createApp } from './app.ts';

export { listenNode } from './node-server.ts';
