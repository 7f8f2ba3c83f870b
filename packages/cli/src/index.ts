/** The CLI as a library: what the tests, the bench and a future MCP adapter share. */
export { type Api, api } from './api.ts';
export { CredentialSource, type CredentialsFile, credentialsPath, type SavedLogin } from './credentials.ts';
export { ExitCode, LocalCode, type Problem } from './errors.ts';
export { main } from './main.ts';
