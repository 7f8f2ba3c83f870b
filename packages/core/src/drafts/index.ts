export type { DraftStore } from './ports.ts';
export { type Draft, DraftBody, DraftView } from './schema.ts';
export { type DraftDeps, discard, get, parseBody, save } from './service.ts';
