export { ciImage } from './forge.ts';
export { sourceBuild } from './release.ts';
export type { Stack } from './stack.ts';
