export { consoleApp } from './app.ts';
export type { BrowserAuth } from './context.ts';
export { errorsDocument } from './pages/errors.ts';
export { type AuthDocuments, authDocuments } from './pages/sign-in.ts';
