import {
  type Catalog,
  type Checks,
  type Clock,
  type Cluster,
  type Compositions,
  type Forge,
  type Idempotency,
  type Jobs,
  type Log,
  type Messaging,
  Rollout,
} from '@svc/core';
import type { Metrics } from './metrics.ts';
import type { Probe } from './prober.ts';

export interface WorkerSettings {
  /** How long a fork may stay in ErrImagePull/ImagePullBackOff/CrashLoopBackOff before the rollout fails. */
  failureGraceMs: number;
  /**
   * Longest a step waits on the cluster in one invocation before handing the wait to a new
   * message: `await-rollout`'s first look watches this long (pods that start quickly are routed
   * at once), `await-deletion` lists for this long. Lambda bills the wait.
   */
  watchBoundMs: number;
  /**
   * Delay of the message that looks at a rollout again after a wait (SQS `DelaySeconds`). A later
   * look only lists, so slow pods cost one short invocation per delay instead of a held one, and
   * are seen up to this much later than a watch would have (docs/orchestration.md, Waiting).
   */
  recheckDelaySeconds: number;
  /** Receives after which a failing step fails its operation (the queue's maxReceiveCount). */
  maxReceiveCount: number;
  /** Attempts of the routing check within one verify step (routes may take a moment to propagate). */
  verifyAttempts: number;
  /** How long one invocation keeps running the next step itself before handing it to the queue. */
  chainBudgetMs: number;
  /** `progressDeadlineSeconds` of fork Deployments. */
  progressDeadlineSeconds: number;
  /**
   * What every isolated queue's name starts with: the installation's own, so that the worker's
   * grant on `<prefix>*` reaches no other stage's queues (infra/settings.ts `previewQueuePrefix`).
   */
  queuePrefix: string;
}

export const defaultWorkerSettings: WorkerSettings = {
  failureGraceMs: Rollout.defaultFailureGraceMs,
  watchBoundMs: 3_000,
  recheckDelaySeconds: 5,
  maxReceiveCount: 5,
  verifyAttempts: 5,
  chainBudgetMs: 25_000,
  progressDeadlineSeconds: 120,
  queuePrefix: 'preview-',
};

/** Forge jobs run pull-request automation, which creates and updates compositions itself. */
export interface WorkerDeps extends Forge.ForgeDeps {
  /** A step's routing check is written with the step (RolloutStore.commit). */
  compositions: Rollout.RolloutStore;
  checks: Checks.CheckStore;
  catalog: Catalog.CatalogStore;
  /** For the idempotency sweep the worker runs on schedule. */
  idempotency: Idempotency.IdempotencyStore;
  jobs: Jobs.JobQueue;
  /** Every cluster of the stage; a composition's steps use its own (StepContext.cluster). */
  clusters: Cluster.ClusterRegistry;
  /** SNS → SQS isolation of overridden consumers. */
  messaging: Messaging.MessagingPort;
  clock: Clock;
  probe: Probe;
  settings: WorkerSettings;
  log: Log;
  /** Counts of what the worker drops or loses (alongside the log line naming it). */
  metrics: Metrics;
  /** The stage's sleep settings (the crawler list); absent: `Compositions.defaultSleepSettings`. */
  sleep?: Compositions.SleepSettings;
  /** Where isolated queues are, for the triggers that wake a sleeping fork on a message. */
  aws?: { settings: { region: string; sqsEndpoint?: string } };
}
