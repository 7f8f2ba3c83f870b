export { type AppDeps, createApp, maxBodyBytes } from './app.ts';
export type { AuthConfig, TokenVerifier } from './auth.ts';
export type { AppEnv } from './env.ts';
export { listenNode } from './node-server.ts';
export { openApiDocument } from './openapi.ts';
