/** Runtime settings of a deployed function, parsed once from the environment SST sets (infra/settings.ts). */
import { randomBytes } from 'node:crypto';
import { type Catalog, type Clock, minCursorKeyLength, systemClock } from '@svc/core';
import * as v from 'valibot';
import { type AwsClients, type AwsSettings, type AwsTimeouts, createAwsClients } from './clients.ts';
import { loadLinkedSecrets } from './linked-secrets.ts';
import { type AwsStores, awsStores } from './stores.ts';

export const RuntimeEnvironment = v.object({
  AWS_REGION: v.pipe(v.string(), v.minLength(1)),
  TABLE_NAME: v.pipe(v.string(), v.minLength(3)),
  JOB_QUEUE_URL: v.pipe(v.string(), v.regex(/^https?:\/\//, 'an http(s) URL')),
  /** The job queue's dead-letter queue: the API's replay reads it (absent: no replay). */
  DEAD_LETTER_QUEUE_URL: v.optional(v.pipe(v.string(), v.regex(/^https?:\/\//, 'an http(s) URL'))),
  /** `https://{id}.{domain}/`: `{domain}` is the baseline's preview domain. */
  PREVIEW_URL_TEMPLATE: v.pipe(v.string(), v.includes('{id}')),
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  SQS_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  /**
   * The installation's secret for sealing page cursors (docs/decisions.md, "Lists and paging"):
   * required of a function that hands cursors out (`requireCursorKey`); the webhook does not.
   */
  CURSOR_KEY: v.optional(v.pipe(v.string(), v.minLength(minCursorKeyLength))),
  /** What the stage's isolated queues are named from (the worker's grant names it); default `preview-`. */
  PREVIEW_QUEUE_PREFIX: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,30}$/, 'a queue name prefix')),
    'preview-',
  ),
  /** The stage's `messageTopics` as a JSON array: the topics the worker may subscribe to. */
  MESSAGE_TOPICS: v.optional(v.pipe(v.string(), v.parseJson(), v.array(v.string())), '[]'),
  /** The namespaces baselines (and so previews) may use, comma-separated; unset for any but the reserved ones. */
  PREVIEW_NAMESPACES: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,63}(,[a-z0-9-]{1,63})*$/, 'namespace names, comma-separated')),
  ),
  /** The service's own namespace (its Gateway's), refused to baselines unless listed. */
  SERVICE_NAMESPACE: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,63}$/)), 'svc-system'),
});
export type RuntimeEnvironment = v.InferOutput<typeof RuntimeEnvironment>;

export interface Runtime {
  /** Region and emulator endpoints, for clients only some functions build (SNS: createSnsClient). */
  aws: AwsSettings;
  clients: AwsClients;
  stores: AwsStores;
  clock: Clock;
  names: { tableName: string; jobQueueUrl: string; deadLetterQueueUrl: string | null };
  previewUrl: (id: string, domain: string) => string;
  /** What the installation grants a catalog: the stage's message topics, where baselines may be. */
  manifestLimits: Catalog.ManifestLimits;
  /** What the stage's isolated queues are named from. */
  previewQueuePrefix: string;
}

function previewUrlFrom(template: string): (id: string, domain: string) => string {
  return (id, domain) => template.replaceAll('{id}', id).replaceAll('{domain}', domain);
}

/**
 * Everything a function needs, from its environment; a missing or malformed variable is named in the
 * error. On Lambda the function's linked SST secrets are copied into `env` first, so whatever reads
 * `env` afterwards (the auth settings, the GitHub App) finds them.
 */
export function runtimeFromEnvironment(
  env: Record<string, string | undefined> = process.env,
  options: { requireCursorKey?: boolean; timeouts?: AwsTimeouts } = {},
): Runtime {
  loadLinkedSecrets(env);
  const parsed = v.safeParse(RuntimeEnvironment, env);
  if (!parsed.success) {
    const names = parsed.issues.map((issue) => issue.path?.map((p) => String(p.key)).join('.') ?? '?');
    throw new Error(`invalid environment: ${[...new Set(names)].join(', ')}`);
  }
  const settings = parsed.output;
  if (options.requireCursorKey && !settings.CURSOR_KEY) throw new Error('invalid environment: CURSOR_KEY');
  const aws: AwsSettings = {
    region: settings.AWS_REGION,
    ...(settings.DYNAMODB_ENDPOINT ? { dynamodbEndpoint: settings.DYNAMODB_ENDPOINT } : {}),
    ...(settings.SQS_ENDPOINT ? { sqsEndpoint: settings.SQS_ENDPOINT } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
  };
  const clients = createAwsClients(aws);
  const names = {
    tableName: settings.TABLE_NAME,
    jobQueueUrl: settings.JOB_QUEUE_URL,
    deadLetterQueueUrl: settings.DEAD_LETTER_QUEUE_URL ?? null,
  };
  return {
    aws,
    clients,
    // Without CURSOR_KEY the function hands out no cursor, so one of its own process seals any it pages with.
    stores: awsStores(clients, names, systemClock, settings.CURSOR_KEY ?? randomBytes(48).toString('base64')),
    clock: systemClock,
    names,
    previewUrl: previewUrlFrom(settings.PREVIEW_URL_TEMPLATE),
    manifestLimits: {
      messageTopics: settings.MESSAGE_TOPICS,
      namespaces: {
        allowed: settings.PREVIEW_NAMESPACES?.split(',') ?? null,
        serviceNamespace: settings.SERVICE_NAMESPACE,
      },
    },
    previewQueuePrefix: settings.PREVIEW_QUEUE_PREFIX,
  };
}
