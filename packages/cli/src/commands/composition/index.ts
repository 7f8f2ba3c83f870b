import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'composition',
  summary: 'Create, wait for, inspect, update, wake and destroy compositions.',
  commands: {
    plan: () => import('./plan.ts'),
    create: () => import('./create.ts'),
    wait: () => import('./wait.ts'),
    update: () => import('./update.ts'),
    get: () => import('./get.ts'),
    inspect: () => import('./inspect.ts'),
    endpoints: () => import('./endpoints.ts'),
    logs: () => import('./logs.ts'),
    events: () => import('./events.ts'),
    diagnosis: () => import('./diagnosis.ts'),
    verification: () => import('./verification.ts'),
    check: () => import('./check.ts'),
    wake: () => import('./wake.ts'),
    destroy: () => import('./destroy.ts'),
    list: () => import('./list.ts'),
  },
});
