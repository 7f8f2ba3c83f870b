export { GitHubEnvironment } from './settings.ts';
export { webhookCheck } from './signature.ts';
export { forgeWiring } from './wiring.ts';
