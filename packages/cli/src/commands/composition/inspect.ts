import { readCommand } from './get.ts';

export default readCommand(
  'composition inspect',
  'Desired and observed state of a composition (same as get).',
);
