export { type Draft, DraftBody, type DraftStore, DraftView } from './model.ts';
export { type DraftDeps, discard, get, parseBody, save } from './service.ts';
