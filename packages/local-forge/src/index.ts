export { type LocalForge, type LocalForgeOptions, startLocalForge } from './forge.ts';
export type { ControlResult, PushEvent } from './simulator.ts';
