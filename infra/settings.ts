/**
 * Everything the SST layer needs, computed as plain data from the shared resource declaration and
 * the stage settings. The files that call SST components stay a few lines each; their inputs are
 * checked here by unit tests, since SST itself cannot run offline.
 */
import { Resources } from '@svc/core';
import service from '../package.json' with { type: 'json' };
import type { StageSettings } from '../stacks/schema.ts';

export const lambdaRuntime = 'nodejs24.x';
export const workerTimeout = `${Resources.workerTimeoutSeconds} seconds`;
export const apiTimeout = '29 seconds';

export function tableArgs() {
  const { table } = Resources;
  const keys = [
    table.partitionKey,
    table.sortKey,
    ...table.globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  return {
    fields: Object.fromEntries(keys.map((key) => [key, 'string' as const])),
    primaryIndex: { hashKey: table.partitionKey, rangeKey: table.sortKey },
    globalIndexes: Object.fromEntries(
      table.globalIndexes.map((index) => [
        index.name,
        { hashKey: index.partitionKey, rangeKey: index.sortKey },
      ]),
    ),
    ttl: table.ttlAttribute,
  };
}

/** Raw table settings SST does not expose directly: on-demand billing and point-in-time recovery. */
export function tableTransform(settings: StageSettings) {
  return {
    billingMode: 'PAY_PER_REQUEST' as const,
    pointInTimeRecovery: { enabled: true },
    deletionProtectionEnabled: settings.retainData,
  };
}

export function queueArgs() {
  const { jobQueue, deadLetterQueue } = Resources;
  return {
    jobs: {
      visibilityTimeout: `${jobQueue.visibilityTimeoutSeconds} seconds`,
      retry: jobQueue.maxReceiveCount,
    },
    deadLetter: { messageRetentionSeconds: deadLetterQueue.messageRetentionSeconds },
  };
}

/** The worker consumes the job queue in batches and reports failures per message. */
export const workerSubscription = {
  batch: { size: 10, window: '0 seconds', partialResponses: true },
} as const;

/** An EventBridge rate expression for a period in seconds (whole minutes, singular unit for 1). */
export function rateExpression(periodSeconds: number): string {
  if (periodSeconds < 60 || periodSeconds % 60 !== 0)
    throw new Error(`schedule period ${periodSeconds}s is not whole minutes`);
  const [value, unit] =
    periodSeconds % 86400 === 0
      ? [periodSeconds / 86400, 'day']
      : periodSeconds % 3600 === 0
        ? [periodSeconds / 3600, 'hour']
        : [periodSeconds / 60, 'minute'];
  return `rate(${value} ${unit}${value === 1 ? '' : 's'})`;
}

export function scheduleArgs() {
  return Resources.schedules.map((schedule) => ({
    id: schedule.name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase()),
    schedule: rateExpression(schedule.periodSeconds),
    event: { schedule: schedule.name },
  }));
}

/** What the functions report on `/version`. */
export interface Build {
  release: string;
  commit: string;
}

/**
 * The build being deployed, from the deploy's environment: the deploy workflow sets SVC_COMMIT to
 * the commit it deploys. Without SVC_RELEASE the release is the service's package version; without
 * SVC_COMMIT (a deploy by hand that did not set it) the commit is `unknown` rather than a guess.
 */
export function deployedBuild(env: Record<string, string | undefined>): Build {
  const commit = env.SVC_COMMIT?.trim() || 'unknown';
  if (commit !== 'unknown' && !/^[0-9a-f]{7,40}$/.test(commit)) {
    throw new Error(
      `SVC_COMMIT must be a git commit SHA (7–40 lowercase hex), got ${JSON.stringify(commit)}`,
    );
  }
  return { release: env.SVC_RELEASE?.trim() || service.version, commit };
}

/**
 * Environment of every function; names come from the linked resources at deploy time, the cursor
 * key from the stage's `CursorKey` secret (docs/runbooks.md).
 */
export function functionEnvironment(
  settings: StageSettings,
  names: { tableName: string; jobQueueUrl: string },
  build: Build,
  cursorKey: string,
): Record<string, string> {
  return {
    CURSOR_KEY: cursorKey,
    AUTH_MODE: settings.authMode,
    AUTH_SETTINGS: JSON.stringify(settings.authSettings),
    TABLE_NAME: names.tableName,
    JOB_QUEUE_URL: names.jobQueueUrl,
    EKS_CLUSTER_NAME: settings.eksClusterName,
    PREVIEW_URL_TEMPLATE: `https://{id}.${settings.previewDomain}/`,
    SVC_RELEASE: build.release,
    SVC_COMMIT: build.commit,
    NODE_OPTIONS: '--enable-source-maps',
  };
}
