import type { PositionalSpecs } from '../../command.ts';

export const previewId = {
  id: { description: 'Preview id, e.g. pr-3f9c2a71d04b5e8a6c12.' },
} as const satisfies PositionalSpecs;
