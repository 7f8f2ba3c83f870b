export { GitHubEnvironment } from './settings.ts';
export { forgeWiring } from './wiring.ts';
