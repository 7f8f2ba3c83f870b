import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'admin',
  summary: "Operate the installation's queues (Admin only).",
  commands: { dlq: () => import('./dlq.ts') },
});
