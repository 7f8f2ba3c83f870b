/**
 * Everything the SST layer needs, computed as plain data from the shared resource declaration and
 * the stage settings. The files that call SST components stay a few lines each; their inputs are
 * checked here by unit tests, since SST itself cannot run offline.
 */
import { Installation, Resources } from '@svc/core';
import service from '../packages/api/package.json' with { type: 'json' };
import consolePackage from '../packages/console/package.json' with { type: 'json' };
import type { StageSettings } from '../stacks/schema.ts';

/** The SST app: every resource's name starts `<appName>-<stage>-` (SST's naming). */
export const appName = 'preview-composition';

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

/**
 * The worker consumes the job queue in batches and reports failures per message, at most the
 * stage's `workerConcurrency` invocations at once (the event source mapping's maximum concurrency).
 */
export function workerSubscription(settings: StageSettings) {
  return {
    batch: { size: 10, window: '0 seconds', partialResponses: true },
    transform: {
      eventSourceMapping: { scalingConfig: { maximumConcurrency: settings.workerConcurrency } },
    },
  } as const;
}

/**
 * The worker's invocations by the schedules are asynchronous: neither Scheduler nor Lambda retries
 * them (a sweep runs again at its next period; a retry would only overlap it), and one left in
 * Lambda's queue (a throttled worker) is dropped after two minutes instead of Lambda's six hours,
 * so a backlog of stale sweeps never runs at once. A schedule that stops is what its
 * SweepSilent alarm sees.
 */
export const scheduledRetries = { function: 0, schedule: 0 } as const;
export const scheduledEventMaximumAgeSeconds = 120;

/** The customer managed policy that bounds every role the stage's deploy creates (infra/ci-role.ts). */
export const permissionsBoundaryName = (stage: string) => `${appName}-${stage}-boundary`;

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
    // Scheduler fills in the time the run was due: the worker reports how late the sweep started.
    event: { schedule: schedule.name, scheduled_at: '<aws.scheduler.scheduled-time>' },
    periodSeconds: schedule.periodSeconds,
    description: schedule.description,
  }));
}

/**
 * The HTTP API: its custom domain, and its stage's throttling (every route, every caller) with
 * per-route metrics, so the 5xx alarm can leave `GET /healthz`, a route of its own, out.
 */
export function apiArgs(settings: StageSettings) {
  return {
    ...(settings.domain ? { domain: settings.domain } : {}),
    // SST's default CORS answers every origin, over the app's own (restricted to publicOrigin).
    cors: false,
    transform: {
      stage: {
        defaultRouteSettings: {
          throttlingRateLimit: settings.apiThrottle.rate,
          throttlingBurstLimit: settings.apiThrottle.burst,
          detailedMetricsEnabled: true,
        },
      },
    },
  };
}

/** One cluster of the stage: the name baselines give it, and the EKS cluster it is. */
export interface StageCluster {
  name: string;
  eksClusterName: string;
  region: string;
}

/**
 * The stage's clusters: its own `eksClusterName` (named after itself, in the stage's region), then
 * its further `clusters`. What the functions' `CLUSTERS`, their DescribeCluster grants and their
 * access entries are made of.
 */
export function stageClusters(settings: StageSettings): StageCluster[] {
  const { eksClusterName, region } = settings;
  return [
    { name: eksClusterName, eksClusterName, region },
    ...Object.entries(settings.clusters).map(([name, c]) => ({
      name,
      eksClusterName: c.eksClusterName,
      region: c.region ?? region,
    })),
  ];
}

/**
 * `CLUSTERS` (packages/kube `KubeEnvironment`): each cluster reached with the function's role, with
 * the projects and namespaces its `clusterAccess` gives it.
 */
function clustersVariable(settings: StageSettings): string {
  return JSON.stringify(
    Object.fromEntries(
      stageClusters(settings).map((c) => {
        const access = settings.clusterAccess[c.name];
        return [
          c.name,
          {
            eks_cluster: c.eksClusterName,
            region: c.region,
            ...(access?.projects ? { projects: access.projects } : {}),
            ...(access?.previewNamespaces ? { preview_namespaces: access.previewNamespaces } : {}),
          },
        ];
      }),
    ),
  );
}

/** What the functions report on `/version`. */
export interface Build {
  release: string;
  commit: string;
}

/**
 * The build being deployed, from the deploy's environment: the deploy workflow sets SVC_COMMIT to
 * the commit it deploys. Without SVC_RELEASE the release is the API package's version (the line
 * changesets keeps for the CLI and the client too); without SVC_COMMIT (a deploy by hand that did
 * not set it) the commit is `unknown` rather than a guess.
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

/** What the functions need to find the table, the queues and themselves: deploy-time values (`V`) in SST. */
export interface ResourceNames<V = string> {
  tableName: V;
  jobQueueUrl: V;
  deadLetterQueueUrl: V;
  /** Where browsers reach the API ({@link publicOrigin}, else the API's own URL). */
  publicOrigin: V;
}

/**
 * Where people and browsers reach the API when the stage says so: its `publicOrigin`, else its
 * custom `domain`. Without either it is the API's own URL, known once the API exists at deploy.
 */
export function publicOrigin(settings: StageSettings): string | undefined {
  return settings.publicOrigin ?? (settings.domain ? `https://${settings.domain}` : undefined);
}

export const FunctionName = { Api: 'api', Worker: 'worker', Webhook: 'webhook' } as const;
export type FunctionName = (typeof FunctionName)[keyof typeof FunctionName];

/**
 * What every isolated queue of the stage is named from, and the worker's grant on them names: one
 * stage's worker cannot reach another stage's queues in the same account. `_` cannot occur in a
 * stage's name (stacks/schema.ts), so no stage's prefix starts another's.
 */
export const previewQueuePrefix = (stage: string) => `preview_${stage}_`;

/** An SST secret (`npx sst secret set <name> <value> --stage <stage>`) and the variable it fills. */
export interface SecretVariable {
  secret: string;
  /** Absent: the secret must be set before a deploy. Empty: optional, unset leaves the feature off. */
  placeholder?: string;
}

/**
 * Environment every function reads (the aws part of its settings, `AwsEnvironment` in packages/aws):
 * names from the resources, the build, and which linked SST secret fills which variable
 * (`SVC_SECRETS`). No secret value is in an environment: SST encrypts the linked ones into the
 * function's package.
 */
function functionEnvironment<V = string>(
  settings: StageSettings,
  names: ResourceNames<V>,
  build: Build,
  secrets: Record<string, SecretVariable>,
  stage: string,
): Record<string, V | string> {
  return {
    SVC_STAGE: stage,
    TABLE_NAME: names.tableName,
    JOB_QUEUE_URL: names.jobQueueUrl,
    PREVIEW_URL_TEMPLATE: `https://{id}.${settings.previewDomain}/`,
    SVC_RELEASE: build.release,
    SVC_COMMIT: build.commit,
    SVC_SECRETS: JSON.stringify(
      Object.fromEntries(Object.entries(secrets).map(([name, s]) => [name, s.secret])),
    ),
  };
}

/**
 * Each function's environment, parsed once by its entry (packages/wiring `ServiceSettings`): the
 * API reads the auth mode, replays dead jobs and, with the worker, reaches the cluster and knows the
 * service's public origin (`AUTH_SETTINGS.public_origin`); the worker names the stage's isolated
 * queues; the webhook needs none of it. `json` encodes a value holding
 * deploy-time values (SST's `$jsonStringify`).
 */
export function functionEnvironments<V = string>(
  settings: StageSettings,
  names: ResourceNames<V>,
  build: Build,
  stage: string,
  json: (value: Record<string, unknown>) => V | string = JSON.stringify,
): Record<FunctionName, Record<string, V | string>> {
  const secrets = functionSecrets(settings);
  const cluster = { CLUSTERS: clustersVariable(settings) };
  // The catalog and the installation check refuse a topic the worker's policy does not grant.
  const topics = { MESSAGE_TOPICS: JSON.stringify(settings.messageTopics) };
  // The API plans and creates with the stage's sleep; the worker renders it and its sweep observes it.
  const sleep = settings.sleep ? { SLEEP_SETTINGS: JSON.stringify(settings.sleep) } : {};
  return {
    api: {
      ...functionEnvironment(settings, names, build, secrets.api, stage),
      ...cluster,
      ...topics,
      ...sleep,
      DEAD_LETTER_QUEUE_URL: names.deadLetterQueueUrl,
      AUTH_MODE: settings.authMode,
      AUTH_SETTINGS: json({ ...settings.authSettings, public_origin: names.publicOrigin }),
      ...(settings.previewNamespaces ? { PREVIEW_NAMESPACES: settings.previewNamespaces.join(',') } : {}),
    },
    worker: {
      ...functionEnvironment(settings, names, build, secrets.worker, stage),
      ...cluster,
      ...sleep,
      PREVIEW_QUEUE_PREFIX: previewQueuePrefix(stage),
      // The API's one setting, of which the worker reads the origin: its deployments link to the console.
      AUTH_SETTINGS: json({ public_origin: names.publicOrigin }),
      ...(settings.previewPrivateAddresses ? { PREVIEW_PRIVATE_ADDRESSES: 'allow' } : {}),
    },
    webhook: functionEnvironment(settings, names, build, secrets.webhook, stage),
  };
}

/** The GitHub App's secrets (docs/forge.md): unset, the forge stays unconfigured. */
const forgeSecrets: Record<string, SecretVariable> = {
  FORGE_APP_ID: { secret: 'ForgeAppId', placeholder: '' },
  FORGE_PRIVATE_KEY: { secret: 'ForgePrivateKey', placeholder: '' },
  FORGE_WEBHOOK_SECRET: { secret: 'ForgeWebhookSecret', placeholder: '' },
  FORGE_WEBHOOK_SECRET_PREVIOUS: { secret: 'ForgeWebhookSecretPrevious', placeholder: '' },
};

/** Seals page cursors; set once per stage (docs/runbooks.md). */
const cursorKey: Record<string, SecretVariable> = { CURSOR_KEY: { secret: 'CursorKey' } };

/**
 * Which secret fills which variable, per function, each linked to the functions that read it and
 * no other. Secrets never sit in a stage file: the auth mode's own (AuthSharedToken for
 * shared-token, OidcClientSecret for oidc) go to the API only; the webhook only checks signatures.
 */
export function functionSecrets(
  settings: StageSettings,
): Record<FunctionName, Record<string, SecretVariable>> {
  const auth: Record<string, SecretVariable> = {
    ...(settings.authMode === 'shared-token' ? { AUTH_SHARED_TOKEN: { secret: 'AuthSharedToken' } } : {}),
    ...(settings.authMode === 'oidc' ? { OIDC_CLIENT_SECRET: { secret: 'OidcClientSecret' } } : {}),
  };
  const { FORGE_WEBHOOK_SECRET, FORGE_WEBHOOK_SECRET_PREVIOUS } = forgeSecrets;
  const webhook = { FORGE_WEBHOOK_SECRET, FORGE_WEBHOOK_SECRET_PREVIOUS } as Record<string, SecretVariable>;
  return {
    api: { ...cursorKey, ...auth, ...forgeSecrets },
    worker: { ...cursorKey, ...forgeSecrets },
    webhook,
  };
}

/** One statement of a function's IAM policy, as SST's `permissions` takes it. */
export interface Permission<Arn> {
  actions: string[];
  resources: (Arn | string)[];
}

/** ARNs the policies name; computed at deploy (infra/functions.ts). */
export interface PolicyArns<Arn> {
  table: Arn;
  /** `<table>/index/*`: queries on the global indexes. */
  tableIndexes: Arn;
  jobs: Arn;
  /** The job queue's dead-letter queue: the API's replay reads it. */
  deadLetter: Arn;
  /** Every cluster of the stage (`stageClusters`). */
  clusters: Arn[];
  /** `arn:…:sqs:<region>:<account>:preview_<stage>_*`: the queues message isolation creates. */
  previewQueues: Arn;
  /** The operator's topics (stage `messageTopics`). */
  topics: Arn[];
}

/** Item reads and writes; TransactWriteItems is authorised per item as these. */
const tableItemActions = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:Query',
];

/** What an event source mapping needs of its function's role to deliver a queue's messages. */
const queueConsumerActions = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
];

/** Active tracing: the function's X-Ray segments (X-Ray has no resource-level permissions). */
const tracing: Permission<never> = {
  actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
  resources: ['*'],
};

/**
 * Least privilege per function. The API: the table's items (and DescribeTable for /healthz), send
 * to the job queue, read the dead-letter queue (the replay), the cluster (its insight and
 * installation routes). The worker: the table, the
 * job queue as consumer and sender, the cluster, and message isolation — preview queues it creates
 * and the operator's topics. The webhook: store a delivery (a conditional put, the received mark,
 * the duplicate's read) and send its job; nothing else.
 */
export function functionPermissions<Arn>(arns: PolicyArns<Arn>): Record<FunctionName, Permission<Arn>[]> {
  const table = { actions: tableItemActions, resources: [arns.table, arns.tableIndexes] };
  const describeCluster = { actions: ['eks:DescribeCluster'], resources: arns.clusters };
  const messageIsolation: Permission<Arn>[] = [
    {
      actions: ['sqs:CreateQueue', 'sqs:GetQueueAttributes', 'sqs:SetQueueAttributes', 'sqs:DeleteQueue'],
      resources: [arns.previewQueues],
    },
    // Listing names no resource: ListQueues (filtered by the preview prefix) and ListTopics.
    { actions: ['sqs:ListQueues', 'sns:ListTopics'], resources: ['*'] },
    // AWS authorizes a subscription's calls on its topic's ARN (the Service Authorization Reference
    // gives Unsubscribe and GetSubscriptionAttributes the `topic` resource type), not on the
    // subscription's own ARN.
    ...(arns.topics.length > 0
      ? [
          {
            actions: [
              'sns:Subscribe',
              'sns:ListSubscriptionsByTopic',
              'sns:GetSubscriptionAttributes',
              'sns:Unsubscribe',
            ],
            resources: arns.topics,
          },
        ]
      : []),
  ];
  return {
    api: [
      table,
      { actions: ['dynamodb:DescribeTable'], resources: [arns.table] },
      { actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes'], resources: [arns.jobs] },
      // The replay of dead jobs (POST /v1/admin/dead-letters/replay).
      {
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'],
        resources: [arns.deadLetter],
      },
      describeCluster,
      tracing,
    ],
    worker: [
      table,
      { actions: [...queueConsumerActions, 'sqs:SendMessage'], resources: [arns.jobs] },
      describeCluster,
      ...messageIsolation,
      tracing,
    ],
    webhook: [
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:GetItem'], resources: [arns.table] },
      { actions: ['sqs:SendMessage'], resources: [arns.jobs] },
      tracing,
    ],
  };
}

/**
 * The functions whose roles talk to the clusters, each given an EKS access entry on every one, and
 * the Kubernetes group that entry puts it in: one per function, so deploy/kubernetes/rbac.yaml
 * grants each the least it needs (only the worker writes).
 */
export const clusterGroups = {
  [FunctionName.Api]: Installation.clusterGroups.api,
  [FunctionName.Worker]: Installation.clusterGroups.worker,
} as const;

const clusterClients = Object.keys(clusterGroups) as (keyof typeof clusterGroups)[];

/**
 * The access entries of the stage: one per cluster client per cluster. The stage's own cluster's
 * keep the ids they had before there were several (a new id would create a second entry for the
 * same role and cluster, which EKS refuses); another cluster's are suffixed with its name, in its
 * region.
 */
export function accessEntries(settings: StageSettings) {
  const pascal = (name: string) =>
    name.replace(/(^|[-_])([a-zA-Z0-9])/g, (_, __, c: string) => c.toUpperCase()).replace(/[-_]/g, '');
  return clusterClients.flatMap((client) =>
    stageClusters(settings).map((cluster) => ({
      id: `${pascal(client)}ClusterAccess${cluster.name === settings.eksClusterName ? '' : pascal(cluster.name)}`,
      client,
      clusterName: cluster.eksClusterName,
      kubernetesGroups: [clusterGroups[client]],
      ...(cluster.region === settings.region ? {} : { region: cluster.region }),
    })),
  );
}

/**
 * SST's `nodejs` build settings per function (esm and minified are SST's defaults). The API splits
 * its bundle so the Kubernetes client, imported only by the routes that need the cluster, is a
 * chunk of its own loaded on first use instead of at every cold start (`npm run bench:bundle`).
 */
export const bundling = {
  // The console reads htmx from its npm package when the app starts: installed beside the bundle,
  // at the version the console is tested with (4.x is a rewrite of 2.x).
  api: { splitting: true, install: { 'htmx.org': consolePackage.dependencies['htmx.org'] } },
  webhook: { splitting: false },
  worker: { splitting: false },
} as const;

/** CloudWatch namespace of the service's own metrics (embedded metric format, docs/runbooks.md). */
export const metricsNamespace = 'PreviewCompositionService';
