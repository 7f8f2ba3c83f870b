export { gitHubAppFromEnvironment } from './settings.ts';
export { forgeWiring } from './wiring.ts';
