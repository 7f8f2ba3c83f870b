/**
 * The command groups as one bundle of their own (dist/commands.cjs, scripts/build.ts): the CLI's
 * bundle starts without them, so `svc version` compiles and loads none of their code. The sign-in
 * flows come with them: a saved login's refresh reads this bundle, as the command it serves would.
 */

export { refreshLogin } from '../oauth.ts';
export { default as admin } from './admin/index.ts';
export { default as auth } from './auth/index.ts';
export { default as catalog } from './catalog/index.ts';
export { default as composition } from './composition/index.ts';
export { default as frontend } from './frontend/index.ts';
export { default as installation } from './installation/index.ts';
export { default as mcp } from './mcp.ts';
export { default as 'pr-preview' } from './pr-preview/index.ts';
export { default as source } from './source/index.ts';
