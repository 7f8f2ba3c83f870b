/**
 * The least each count per preview (create → ready → update → ready → destroy, one overridden
 * component that is not the entry, no message isolation) can be under the design as documented
 * (docs/orchestration.md, docs/data-model.md), with today's items and indexes. docs/performance.md
 * gives the reasoning in full; `why` is its summary.
 */
export interface Minimum {
  minimum: number;
  why: string;
}

export const minimums = {
  'DynamoDB reads (requests)': {
    minimum: 12,
    why: 'API 4 (project pointer on create; composition + pointer on update; composition on destroy); worker 8 (operation + composition per operation picked up, one fence re-read after each rollout wait)',
  },
  'DynamoDB writes (requests)': {
    minimum: 6,
    why: 'one transaction per accepted operation (API) and one per finished operation (worker), checks and events inside them',
  },
  'DynamoDB RCU': { minimum: 12, why: 'the 12 reads, consistent, items under 4 KB' },
  'DynamoDB WCU': {
    minimum: 178,
    why: 'the three API transactions (66) and the three completion transactions (98) as measured, plus each operation’s step_started event (3 × 2) and each rollout’s check (2 × 4) moved into them',
  },
  'SQS messages sent': { minimum: 3, why: 'one per operation: the worker chains the steps' },
  'SQS messages received': { minimum: 3, why: 'each message once' },
  'SQS requests': { minimum: 9, why: 'send, receive and delete per message' },
  'Kubernetes requests': {
    minimum: 31,
    why: 'per rollout 12 (2 baseline reads, 4 applies, 1 watch, 1 mesh route, 4 label-selected lists for the fingerprint: the baseline’s Services and Deployments, the fork Services and routes; the forks are the watch’s); destroy 7 (anchor delete, one list per labelled kind)',
  },
  'worker invocations (messages handled)': { minimum: 3, why: 'one per operation' },
} satisfies Record<string, Minimum>;

export type CountName = keyof typeof minimums;
