export { consoleApp } from './app.ts';
export type { BrowserAuth } from './context.ts';
