/**
 * The one declaration of the cloud resources. `infra/` (SST) builds them on AWS and
 * `packages/local` creates them against DynamoDB Local and fauxqs, so local and cloud cannot drift.
 * Plain data only: no SDK types, no I/O.
 */

/** How long one worker invocation may run (the Lambda timeout; the local worker's step budget). */
export const workerTimeoutSeconds = 60;

/** The single table. Item types and key layouts are documented in docs/data-model.md. */
export const table = {
  name: 'svc',
  partitionKey: 'pk',
  sortKey: 'sk',
  /** DynamoDB's TTL attribute: epoch seconds after which an item may be deleted lazily. */
  ttlAttribute: 'ttl',
  globalIndexes: [
    /** Lists, newest first: every active composition; builds per project; events per composition. */
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    /** Filtered lists: active compositions of one project; builds by component and commit. */
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    /**
     * Sparse, time-ordered work queues for the sweeps: compositions by `expires_at`, overdue
     * operations by due time, idempotency records by expiry. An item leaves the index when its
     * attribute is removed, so every sweep costs O(due), not O(all).
     */
    { name: 'due', partitionKey: 'duepk', sortKey: 'duesk' },
  ],
} as const;

export const deadLetterQueue = {
  name: 'svc-jobs-dlq',
  /** Long enough for an operator to look at a poison message. */
  messageRetentionSeconds: 14 * 24 * 3600,
} as const;

/** Operation steps, sweeps and webhook processing all travel on this queue. */
export const jobQueue = {
  name: 'svc-jobs',
  /** ≥ 6 × the worker timeout, as AWS recommends for Lambda event sources. */
  visibilityTimeoutSeconds: 6 * workerTimeoutSeconds,
  messageRetentionSeconds: 4 * 24 * 3600,
  /** Receives before a message is moved to the dead-letter queue and its operation failed. */
  maxReceiveCount: 5,
  deadLetterQueue: deadLetterQueue.name,
} as const;

export const queues = [jobQueue, deadLetterQueue] as const;

export const ScheduleName = {
  ExpirySweep: 'expiry-sweep',
  IdempotencySweep: 'idempotency-sweep',
  RedispatchSweep: 'redispatch-sweep',
  ForgeDispatchSweep: 'forge-dispatch-sweep',
  ForgeReconcile: 'forge-reconcile',
  SleepSweep: 'sleep-sweep',
} as const;
export type ScheduleName = (typeof ScheduleName)[keyof typeof ScheduleName];

export const schedules: readonly { name: ScheduleName; periodSeconds: number; description: string }[] = [
  {
    name: ScheduleName.ExpirySweep,
    periodSeconds: 60,
    description: 'start the destroy of compositions past expires_at',
  },
  {
    name: ScheduleName.IdempotencySweep,
    periodSeconds: 3600,
    description: 'delete Idempotency-Key records past retention',
  },
  {
    name: ScheduleName.RedispatchSweep,
    periodSeconds: 60,
    description: 're-enqueue operations whose next step is overdue',
  },
  {
    name: ScheduleName.ForgeDispatchSweep,
    periodSeconds: 60,
    description: 'send stored forge deliveries whose processing job was lost',
  },
  {
    name: ScheduleName.ForgeReconcile,
    periodSeconds: 300,
    description: 'converge every policy repository with the forge and ask it to redeliver failed deliveries',
  },
  {
    name: ScheduleName.SleepSweep,
    periodSeconds: 60,
    description: "record the sleep and wake of compositions' forks, read back from the cluster",
  },
];
