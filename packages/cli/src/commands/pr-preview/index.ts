import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'pr-preview',
  summary:
    'Pull-request previews owned by the forge application: list, inspect, stop, restart, policies, deliveries.',
  commands: {
    list: () => import('./list.ts'),
    get: () => import('./get.ts'),
    stop: () => import('./stop.ts'),
    restart: () => import('./restart.ts'),
    policy: () => import('./policy.ts'),
    'delete-policy': () => import('./delete-policy.ts'),
    deliveries: () => import('./deliveries.ts'),
  },
});
