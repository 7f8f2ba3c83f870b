export { GitHubAppSettings, gitHubAppFromEnvironment } from './settings.ts';
export { type ForgeWiring, forgeWiring } from './wiring.ts';
