import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'admin dlq',
  summary: 'The dead-letter queue: jobs that failed every attempt.',
  commands: { replay: () => import('./dlq-replay.ts') },
});
