/** Argument fragments shared by several commands, declared once so help and behaviour agree. */
import type { FlagSpec, PositionalSpecs } from '../command.ts';

export const compositionId = {
  id: { description: 'Composition id, e.g. c-k3x9q2m7a1zt.' },
} as const satisfies PositionalSpecs;

export const selectionFlags = {
  image: {
    type: 'string',
    value: 'registry/repository:tag',
    description: 'Single-image shorthand: override --component with this fully qualified image.',
  },
  component: {
    type: 'string',
    defaultNote: "the project's component named like the image (service-b in the local demo); said on stderr",
    description: 'Component that --image overrides.',
  },
  override: {
    type: 'string',
    multiple: true,
    value: 'component=image',
    description: 'Override a component with an image.',
  },
  build: {
    type: 'string',
    multiple: true,
    value: 'component=build_id',
    description: 'Override a component with a published build (svc source list).',
  },
  'inherit-all': {
    type: 'boolean',
    description: 'No overrides: inherit every component; not with --image, --component, --override, --build.',
  },
  'expected-preview-revision': {
    type: 'string',
    multiple: true,
    value: 'component=revision',
    description: "Refuse (409) if the component's approved profile revision is not this one.",
  },
} as const satisfies Record<string, FlagSpec>;

export const selectionNotes = [
  'Overrides from --image, --override and --build total at most 3, for distinct components.',
];

export const pageFlags = {
  limit: { type: 'string', value: 'int', description: 'Page size, 1–200 (server default 50).' },
  after: { type: 'string', value: 'next_cursor', description: "The previous page's next_cursor." },
} as const satisfies Record<string, FlagSpec>;

export const fileFlag = {
  file: {
    type: 'string',
    required: true,
    value: 'path',
    description: 'JSON file to send; - reads standard input.',
  },
} as const satisfies Record<string, FlagSpec>;
