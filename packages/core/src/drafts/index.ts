export { type Draft, DraftBody, DraftView } from './model.ts';
export type { DraftStore } from './ports.ts';
export { type DraftDeps, discard, get, parseBody, save } from './service.ts';
