/**
 * The AWS part of the service's settings: the runtime environment SST gives a deployed function
 * (infra/settings.ts `functionEnvironments`), or the local stack its own values in the same shape.
 */
import { type Catalog, Compositions, minCursorKeyLength } from '@svc/core';
import * as v from 'valibot';
import type { AwsSettings } from './clients.ts';

const HttpUrl = v.pipe(v.string(), v.regex(/^https?:\/\//, 'must be an http(s) URL'));
const EmulatorUrl = v.pipe(v.string(), v.url('must be a URL'));
const CursorKey = v.pipe(
  v.string(),
  v.minLength(minCursorKeyLength, `must be at least ${minCursorKeyLength} characters`),
);

/** Every variable of the part; which of them an entry requires is {@link awsEnvironment}'s to say. */
export const AwsEnvironment = v.object({
  AWS_REGION: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  TABLE_NAME: v.pipe(v.string(), v.minLength(3, 'must be at least 3 characters')),
  JOB_QUEUE_URL: HttpUrl,
  /** The job queue's dead-letter queue: the API's replay reads it. */
  DEAD_LETTER_QUEUE_URL: v.optional(HttpUrl),
  /** `https://{id}.{domain}/`: `{domain}` is the baseline's preview domain. */
  PREVIEW_URL_TEMPLATE: v.pipe(v.string(), v.includes('{id}', 'must include {id}')),
  DYNAMODB_ENDPOINT: v.optional(EmulatorUrl),
  SQS_ENDPOINT: v.optional(EmulatorUrl),
  /**
   * The installation's secret for sealing page cursors (docs/decisions.md, "Lists and paging"):
   * required of a function that hands cursors out; the webhook does not.
   */
  CURSOR_KEY: v.optional(CursorKey),
  /** What the stage's isolated queues are named from (the worker's grant names it); default `preview-`. */
  PREVIEW_QUEUE_PREFIX: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9_-]{1,30}$/, 'must be a queue name prefix (A-Z a-z 0-9 _ -, 1–30)'),
    ),
    'preview-',
  ),
  /** The stage's `messageTopics` as a JSON array: the topics the worker may subscribe to. */
  MESSAGE_TOPICS: v.optional(
    v.pipe(
      v.string(),
      v.parseJson(undefined, 'must be JSON'),
      v.array(v.string(), 'must be an array of names'),
    ),
    '[]',
  ),
  /** The namespaces baselines (and so previews) may use, comma-separated; unset for any but the reserved ones. */
  PREVIEW_NAMESPACES: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[a-z0-9-]{1,63}(,[a-z0-9-]{1,63})*$/, 'must be namespace names, comma-separated'),
    ),
  ),
  /**
   * The domains previews answer on, comma-separated: a baseline's `preview_domain` must be one (or
   * one of its cluster's `preview_domains`). Unset: the domain `PREVIEW_URL_TEMPLATE` names, if it
   * names one rather than `{domain}`.
   */
  PREVIEW_DOMAINS: v.optional(
    v.pipe(
      v.string(),
      v.toLowerCase(),
      v.regex(/^[a-z0-9.-]{1,253}(,[a-z0-9.-]{1,253})*$/, 'must be DNS names, comma-separated'),
    ),
  ),
  /**
   * `allow`: the routing check may reach loopback, link-local and private addresses (a gateway inside
   * the network, the local stack's on 127.0.0.1). Anything else, or unset: it never connects to one.
   */
  PREVIEW_PRIVATE_ADDRESSES: v.optional(v.picklist(['allow', 'refuse'], 'must be allow or refuse'), 'refuse'),
  /**
   * The stage's sleep (docs/sleep.md) as JSON: `default_after` for baselines that set no `sleep`
   * (null: they never sleep), `max_after` cutting every baseline's, `crawler_user_agents` replacing
   * the documented list of link unfurlers and crawlers routed to the baseline.
   */
  SLEEP_SETTINGS: v.optional(
    v.pipe(v.string(), v.parseJson(undefined, 'must be JSON'), Compositions.SleepSettingsInput),
    '{}',
  ),
  /** The service's own namespace (its Gateway's), refused to baselines unless listed. */
  SERVICE_NAMESPACE: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,63}$/, 'must be a namespace name')),
    'svc-system',
  ),
  /** The stage the function runs in: every metric's `stage` dimension (packages/aws lambda-output). */
  SVC_STAGE: v.optional(v.string(), 'local'),
  /** What `/version` reports: the release and the commit deployed (infra/settings.ts `deployedBuild`). */
  SVC_RELEASE: v.optional(v.string(), 'dev'),
  SVC_COMMIT: v.optional(v.string(), 'unknown'),
});

export interface AwsServiceSettings {
  /** Region and emulator endpoints, as every client is built with them. */
  client: AwsSettings;
  names: { tableName: string; jobQueueUrl: string; deadLetterQueueUrl: string | null };
  /** Null where the entry hands out no cursor (the webhook, the scripts). */
  cursorKey: string | null;
  previewUrlTemplate: string;
  /** What the installation grants a catalog: the stage's message topics, where baselines may be (its clusters are the kube part's). */
  manifestLimits: Omit<Catalog.ManifestLimits, 'clusters' | 'clusterScopes'>;
  /** Whether the routing check may connect to loopback, link-local and private addresses. */
  previewPrivateAddresses: boolean;
  /** What the stage's isolated queues are named from. */
  previewQueuePrefix: string;
  sleep: Compositions.SleepSettings;
  build: { release: string; commit: string };
}

/** The domain a template names after `{id}.` (`https://{id}.previews.acme.io/`), if it names one. */
function templateDomain(template: string): string[] {
  const domain = /\{id\}\.([a-z0-9.-]+)(?=[:/]|$)/i.exec(template)?.[1];
  return domain ? [domain.toLowerCase()] : [];
}

function awsServiceSettings(env: v.InferOutput<typeof AwsEnvironment>): AwsServiceSettings {
  return {
    client: {
      region: env.AWS_REGION,
      ...(env.DYNAMODB_ENDPOINT ? { dynamodbEndpoint: env.DYNAMODB_ENDPOINT } : {}),
      ...(env.SQS_ENDPOINT ? { sqsEndpoint: env.SQS_ENDPOINT } : {}),
    },
    names: {
      tableName: env.TABLE_NAME,
      jobQueueUrl: env.JOB_QUEUE_URL,
      deadLetterQueueUrl: env.DEAD_LETTER_QUEUE_URL ?? null,
    },
    cursorKey: env.CURSOR_KEY ?? null,
    previewUrlTemplate: env.PREVIEW_URL_TEMPLATE,
    manifestLimits: {
      messageTopics: env.MESSAGE_TOPICS,
      namespaces: {
        allowed: env.PREVIEW_NAMESPACES?.split(',') ?? null,
        serviceNamespace: env.SERVICE_NAMESPACE,
      },
      previewDomains: env.PREVIEW_DOMAINS?.split(',') ?? templateDomain(env.PREVIEW_URL_TEMPLATE),
    },
    previewPrivateAddresses: env.PREVIEW_PRIVATE_ADDRESSES === 'allow',
    previewQueuePrefix: env.PREVIEW_QUEUE_PREFIX,
    sleep: Compositions.sleepSettingsOf(env.SLEEP_SETTINGS),
    build: { release: env.SVC_RELEASE, commit: env.SVC_COMMIT },
  };
}

/**
 * The part as an entry reads it: the API and the worker hand out page cursors (`cursorKey`), the
 * API replays dead jobs (`deadLetterQueue`); the webhook and the scripts need neither.
 */
export function awsEnvironment(needs: { cursorKey: boolean; deadLetterQueue: boolean }) {
  return v.pipe(
    v.object({
      ...AwsEnvironment.entries,
      CURSOR_KEY: needs.cursorKey ? CursorKey : v.optional(CursorKey),
      DEAD_LETTER_QUEUE_URL: needs.deadLetterQueue ? HttpUrl : v.optional(HttpUrl),
    }),
    v.transform((env) => awsServiceSettings(env)),
  );
}
