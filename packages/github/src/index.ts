export { gitHubAppFromEnvironment, webhookVerifierFromEnvironment } from './settings.ts';
export { forgeWiring } from './wiring.ts';
