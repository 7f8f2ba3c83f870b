export { gitHubAppFromEnvironment, webhookSecretsFromEnvironment } from './settings.ts';
export { webhookVerifier } from './signature.ts';
export { forgeWiring } from './wiring.ts';
