/**
 * sst.config.ts, loaded with recording stand-ins for SST (infra/sst-stand-ins.ts): each function's
 * handler, environment, links and permissions, the cluster access entries, the schedules, the
 * alarms and the outputs, as the docs describe them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { metricsNamespace as emittedNamespace, RuntimeEnvironment } from '@svc/aws';
import { Auth } from '@svc/core';
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import staging from '../stacks/staging.ts';
import { clusterGroup, metricsNamespace } from './settings.ts';
import { installSstStandIns } from './sst-stand-ins.ts';

type StandIns = ReturnType<typeof installSstStandIns>;
let standIns: StandIns | undefined;

afterEach(() => {
  standIns?.restore();
  standIns = undefined;
  vi.doUnmock('../stacks/staging.ts');
  vi.resetModules();
});

/** What SST calls of the config. */
interface Config {
  app(input: { stage: string }): Promise<{
    home: string;
    removal: string;
    providers: { aws: { region: string } };
  }>;
  run(): Promise<Record<string, string>>;
}

/**
 * The config as SST loads it. Its path is a variable so the type checker leaves it alone: its
 * types are SST's, generated at install (`.sst/platform`), absent offline.
 */
const configPath = '../sst.config.ts';
async function loadConfig(): Promise<Config> {
  return ((await import(/* @vite-ignore */ configPath)) as { default: Config }).default;
}

/** Loads the config for a stage as SST would: `app()`, then `run()` with the provider's region. */
async function deploy(stage: string) {
  standIns = installSstStandIns(stage);
  const config = await loadConfig();
  const app = await config.app({ stage });
  standIns.state.region = app.providers.aws.region;
  const outputs = await config.run();
  return { app, outputs, standIns };
}

interface Permission {
  actions: string[];
  resources: string[];
}

function fn(recorded: StandIns, name: string) {
  const args = recorded.of('sst.aws.Function').get(name);
  if (!args) throw new Error(`no function ${name}`);
  return {
    handler: args.handler as string,
    environment: args.environment as Record<string, string>,
    permissions: args.permissions as Permission[],
    args,
  };
}

const actionsOf = (permissions: Permission[]) => permissions.flatMap((p) => p.actions).sort();
const resourcesOf = (permissions: Permission[], action: string) =>
  permissions.filter((p) => p.actions.includes(action)).flatMap((p) => p.resources);

describe('sst.config.ts wiring', () => {
  it('deploys a stage in the region its stage file names, removing a stage that keeps no data', async () => {
    const { app } = await deploy('staging');
    expect(app.providers.aws.region).toBe(staging.region);
    expect(app.removal).toBe('remove');
    expect(app.home).toBe('aws');
  });

  it('gives each function its own handler, present in the repository and exporting `handler`', async () => {
    const { standIns } = await deploy('staging');
    const handlers = {
      ApiFunction: 'packages/api/src/lambda.handler',
      Webhook: 'packages/api/src/webhook-lambda.handler',
      Worker: 'packages/worker/src/lambda.handler',
    };
    expect([...standIns.of('sst.aws.Function').keys()].sort()).toEqual(Object.keys(handlers).sort());
    for (const [name, handler] of Object.entries(handlers)) {
      const declared = fn(standIns, name);
      expect(declared.handler).toBe(handler);
      const file = `${handler.slice(0, handler.lastIndexOf('.'))}.ts`;
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file, 'utf8')).toMatch(/export const handler\b/);
      expect(declared.args.runtime).toBe('nodejs24.x');
      expect(declared.args.logging).toEqual({ format: 'json' });
      expect(declared.args.transform).toEqual({ function: { tracingConfig: { mode: 'Active' } } });
      // SST's links grant dynamodb:* and sqs:*; every grant is a permission instead.
      expect(declared.args.link).toBeUndefined();
    }
    expect(fn(standIns, 'Webhook').args.url).toBe(true);
    expect(fn(standIns, 'ApiFunction').args.url).toBeUndefined();
    expect(fn(standIns, 'Worker').args.url).toBeUndefined();
  });

  it('routes the API to the API function only; the webhook is its own URL', async () => {
    const { standIns } = await deploy('staging');
    const routes = standIns.declared.filter((d) => d.type === 'sst.aws.ApiGatewayV2.route');
    expect(routes.map((r) => r.args)).toEqual([
      { route: '$default', handler: 'arn:aws:lambda:eu-west-1:123456789012:function:ApiFunction' },
    ]);
  });

  it('gives each function the environment its runtime parses, with names from the resources', async () => {
    const { standIns } = await deploy('staging');
    for (const name of ['ApiFunction', 'Webhook', 'Worker']) {
      const { environment } = fn(standIns, name);
      // The stand-in's secret value is its name; the runtime wants a key of at least 32 characters.
      const withKey = { ...environment, CURSOR_KEY: 'k'.repeat(48), AWS_REGION: staging.region };
      const parsed = v.safeParse(RuntimeEnvironment, withKey);
      expect(parsed.success, name).toBe(true);
      expect(environment).toMatchObject({
        TABLE_NAME: 'Table-table-name',
        JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Jobs',
        CURSOR_KEY: 'secret:CursorKey',
        PREVIEW_URL_TEMPLATE: `https://{id}.${staging.previewDomain}/`,
        FORGE_WEBHOOK_SECRET: 'secret:ForgeWebhookSecret',
      });
      expect(environment.SVC_RELEASE).toMatch(/\S/);
      expect(environment.SVC_COMMIT).toMatch(/^([0-9a-f]{7,40}|unknown)$/);
    }
    const api = fn(standIns, 'ApiFunction').environment;
    expect(Auth.parseAuthSettings(api, { allowDev: false }).mode).toBe(staging.authMode);
    expect(api.EKS_CLUSTER_NAME).toBe(staging.eksClusterName);
    expect(fn(standIns, 'Worker').environment.EKS_CLUSTER_NAME).toBe(staging.eksClusterName);
    const webhook = fn(standIns, 'Webhook').environment;
    expect(webhook).not.toHaveProperty('EKS_CLUSTER_NAME');
    expect(webhook).not.toHaveProperty('AUTH_MODE');
    expect(webhook).not.toHaveProperty('FORGE_PRIVATE_KEY');
    expect(webhook).not.toHaveProperty('FORGE_APP_ID');
    expect(fn(standIns, 'Worker').environment).not.toHaveProperty('AUTH_MODE');
  });

  it('reports the commit and release the deploy names on /version', async () => {
    vi.stubEnv('SVC_COMMIT', 'c'.repeat(40));
    vi.stubEnv('SVC_RELEASE', '2026.11.2');
    try {
      const { standIns } = await deploy('staging');
      for (const name of ['ApiFunction', 'Webhook', 'Worker']) {
        expect(fn(standIns, name).environment).toMatchObject({
          SVC_COMMIT: 'c'.repeat(40),
          SVC_RELEASE: '2026.11.2',
        });
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('declares each secret once, required ones without a placeholder', async () => {
    const { standIns } = await deploy('staging');
    const secrets = standIns.declared.filter((d) => d.type === 'sst.Secret');
    expect(secrets.map((s) => s.name).sort()).toEqual(
      [
        'CursorKey',
        'ForgeAppId',
        'ForgePrivateKey',
        'ForgeWebhookSecret',
        'ForgeWebhookSecretPrevious',
      ].sort(),
    );
    expect(secrets.find((s) => s.name === 'CursorKey')?.args).toEqual({});
  });

  it("passes the mode's secret to the API alone", async () => {
    vi.doMock('../stacks/staging.ts', () => ({
      default: {
        ...staging,
        authMode: 'oidc',
        authSettings: { issuer: 'https://id.acme.io', client_id: 'svc' },
      },
    }));
    const { standIns } = await deploy('staging');
    expect(fn(standIns, 'ApiFunction').environment.OIDC_CLIENT_SECRET).toBe('secret:OidcClientSecret');
    expect(fn(standIns, 'Worker').environment).not.toHaveProperty('OIDC_CLIENT_SECRET');
    expect(fn(standIns, 'Webhook').environment).not.toHaveProperty('OIDC_CLIENT_SECRET');
  });

  it('grants the webhook a delivery write and a job send, nothing else', async () => {
    const { standIns } = await deploy('staging');
    const { permissions } = fn(standIns, 'Webhook');
    expect(actionsOf(permissions)).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ].sort(),
    );
    expect(resourcesOf(permissions, 'dynamodb:PutItem')).toEqual([
      'arn:aws:dynamodb:eu-west-1:123456789012:table/Table',
    ]);
    expect(resourcesOf(permissions, 'sqs:SendMessage')).toEqual(['arn:aws:sqs:eu-west-1:123456789012:Jobs']);
  });

  it('grants the API the table, sending jobs and describing its one cluster', async () => {
    const { standIns } = await deploy('staging');
    const { permissions } = fn(standIns, 'ApiFunction');
    const actions = actionsOf(permissions);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:Query', 'dynamodb:DescribeTable', 'sqs:SendMessage']),
    );
    expect(
      actions.filter((a) => a.startsWith('sns:') || a === 'sqs:ReceiveMessage' || a === 'sqs:CreateQueue'),
    ).toEqual([]);
    expect(actions.some((a) => a.endsWith(':*'))).toBe(false);
    expect(resourcesOf(permissions, 'dynamodb:Query')).toEqual([
      'arn:aws:dynamodb:eu-west-1:123456789012:table/Table',
      'arn:aws:dynamodb:eu-west-1:123456789012:table/Table/index/*',
    ]);
    expect(resourcesOf(permissions, 'eks:DescribeCluster')).toEqual([
      `arn:aws:eks:eu-west-1:123456789012:cluster/${staging.eksClusterName}`,
    ]);
  });

  it("tells the API the stage's message topics, the ones the worker's policy grants", async () => {
    vi.doMock('../stacks/staging.ts', () => ({
      default: { ...staging, messageTopics: ['orders', 'billing-*'] },
    }));
    const { standIns } = await deploy('staging');
    const api = fn(standIns, 'ApiFunction').environment;
    expect(JSON.parse(api.MESSAGE_TOPICS ?? '')).toEqual(['orders', 'billing-*']);
    const parsed = v.parse(RuntimeEnvironment, {
      ...api,
      CURSOR_KEY: 'k'.repeat(48),
      AWS_REGION: 'eu-west-1',
    });
    expect(parsed.MESSAGE_TOPICS).toEqual(['orders', 'billing-*']);
  });

  it('grants the worker the queue as consumer, and message isolation on preview queues and the stage topics', async () => {
    vi.doMock('../stacks/staging.ts', () => ({
      default: { ...staging, region: 'us-east-2', messageTopics: ['orders', 'billing-*'] },
    }));
    const { standIns } = await deploy('staging');
    const { permissions } = fn(standIns, 'Worker');
    const jobs = 'arn:aws:sqs:us-east-2:123456789012:Jobs';
    for (const action of [
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:SendMessage',
    ]) {
      expect(resourcesOf(permissions, action)).toContain(jobs);
    }
    for (const action of ['sqs:CreateQueue', 'sqs:SetQueueAttributes', 'sqs:DeleteQueue']) {
      expect(resourcesOf(permissions, action)).toEqual(['arn:aws:sqs:us-east-2:123456789012:preview-*']);
    }
    expect(resourcesOf(permissions, 'sns:Subscribe')).toEqual([
      'arn:aws:sns:us-east-2:123456789012:orders',
      'arn:aws:sns:us-east-2:123456789012:billing-*',
    ]);
    expect(resourcesOf(permissions, 'eks:DescribeCluster')).toEqual([
      `arn:aws:eks:us-east-2:123456789012:cluster/${staging.eksClusterName}`,
    ]);
  });

  it('subscribes the worker to the job queue with partial batch responses, and schedules every sweep on it', async () => {
    const { standIns } = await deploy('staging');
    const worker = 'arn:aws:lambda:eu-west-1:123456789012:function:Worker';
    expect(standIns.of('sst.aws.Queue.subscribe').get('Jobs')).toMatchObject({
      subscriber: worker,
      batch: { partialResponses: true },
    });
    const crons = [...standIns.of('sst.aws.CronV2').values()];
    expect(crons.length).toBeGreaterThan(0);
    for (const cron of crons) expect(cron.function).toBe(worker);
  });

  it("gives the API's and the worker's roles, not the webhook's, an EKS access entry in the RBAC group", async () => {
    const { standIns } = await deploy('staging');
    const entries = standIns.of('aws.eks.AccessEntry');
    expect([...entries.values()]).toEqual([
      {
        clusterName: staging.eksClusterName,
        principalArn: 'arn:aws:iam::123456789012:role/ApiFunctionRole',
        kubernetesGroups: [clusterGroup],
        type: 'STANDARD',
      },
      {
        clusterName: staging.eksClusterName,
        principalArn: 'arn:aws:iam::123456789012:role/WorkerRole',
        kubernetesGroups: [clusterGroup],
        type: 'STANDARD',
      },
    ]);
  });

  it('raises every alarm the runbook explains, to the alarm topic', async () => {
    const { standIns } = await deploy('staging');
    const runbook = readFileSync('docs/runbooks.md', 'utf8');
    const anchors = new Set(
      [...runbook.matchAll(/^#{2,3} (.+)$/gm)].map((m) =>
        (m[1] ?? '')
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replaceAll(' ', '-'),
      ),
    );
    const alarms = standIns.of('aws.cloudwatch.MetricAlarm');
    expect([...alarms.keys()].sort()).toEqual(
      [
        'DeadLetterNotEmpty',
        'OldestJobAge',
        'ApiErrors',
        'ApiThrottles',
        'WorkerErrors',
        'WorkerThrottles',
        'WebhookErrors',
        'WebhookThrottles',
        'Api5xxRate',
        'WebhookFailures',
        'WebhookSignaturesRejected',
      ].sort(),
    );
    for (const [name, alarm] of alarms) {
      expect(alarm.alarmActions, name).toEqual(['arn:aws:sns:eu-west-1:123456789012:Alarms']);
      const section = String(alarm.alarmDescription).match(/docs\/runbooks\.md#([a-z0-9-]+)$/)?.[1];
      expect(anchors.has(section ?? ''), `${name} → ${section}`).toBe(true);
    }
    expect(alarms.get('DeadLetterNotEmpty')?.dimensions).toEqual({ QueueName: 'JobsDeadLetter-queue-name' });
    expect(alarms.get('WorkerErrors')?.dimensions).toEqual({ FunctionName: 'Worker-function-name' });
    expect(alarms.get('WebhookSignaturesRejected')).toMatchObject({
      namespace: emittedNamespace,
      metricName: 'WebhookDeliveriesRejected',
      dimensions: { service: 'webhook' },
    });
    expect(metricsNamespace).toBe(emittedNamespace);
    expect(standIns.of('aws.sns.TopicSubscription').size).toBe(0);
  });

  it('mails the alarms to the stage address when it names one', async () => {
    vi.doMock('../stacks/staging.ts', () => ({ default: { ...staging, alarmEmail: 'oncall@acme.io' } }));
    const { standIns } = await deploy('staging');
    expect(standIns.of('aws.sns.TopicSubscription').get('AlarmsEmail')).toEqual({
      topic: 'arn:aws:sns:eu-west-1:123456789012:Alarms',
      protocol: 'email',
      endpoint: 'oncall@acme.io',
    });
  });

  it('outputs the URLs, roles, queues and table an operator needs', async () => {
    const { outputs } = await deploy('staging');
    expect(outputs).toEqual({
      api: 'https://api.execute-api.eu-west-1.amazonaws.com',
      webhook: 'https://webhook.lambda-url.eu-west-1.on.aws/',
      table: 'Table-table-name',
      jobQueue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Jobs',
      deadLetterQueue: 'https://sqs.eu-west-1.amazonaws.com/123456789012/JobsDeadLetter',
      apiRole: 'arn:aws:iam::123456789012:role/ApiFunctionRole',
      workerRole: 'arn:aws:iam::123456789012:role/WorkerRole',
      webhookRole: 'arn:aws:iam::123456789012:role/WebhookRole',
      alarmTopic: 'arn:aws:sns:eu-west-1:123456789012:Alarms',
    });
  });

  it('refuses to deploy production while its domain and cluster are placeholders', async () => {
    standIns = installSstStandIns('production');
    const config = await loadConfig();
    await expect(config.app({ stage: 'production' })).rejects.toThrow(
      /previewDomain "preview\.example\.com" is a placeholder.*eksClusterName "change-me" is a placeholder/,
    );
    expect(standIns.declared).toEqual([]);
  });

  it('refuses a stage with no settings file', async () => {
    standIns = installSstStandIns('nowhere');
    const config = await loadConfig();
    await expect(config.app({ stage: 'nowhere' })).rejects.toThrow(/nowhere/);
  });
});

describe('the recording stand-ins', () => {
  it('refuse an argument SST does not accept', () => {
    standIns = installSstStandIns('staging');
    expect(() => new sst.aws.Function('F', { handler: 'x.handler', permission: [] } as never)).toThrow(
      /does not accept "permission"/,
    );
    expect(() => new sst.aws.Queue('Q', { visibility: '1 minute' } as never)).toThrow(
      /does not accept "visibility"/,
    );
  });
});
