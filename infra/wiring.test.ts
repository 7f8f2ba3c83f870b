/**
 * sst.config.ts, loaded with recording stand-ins for SST (infra/sst-stand-ins.ts): each function's
 * handler, environment, links and permissions, the cluster access entries, the schedules, the
 * alarms and the outputs, as the docs describe them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { AwsEnvironment, metricsNamespace as emittedNamespace } from '@svc/aws';
import { Auth, parseEnvironment, ServiceMetric } from '@svc/core';
import { ServiceSettings, WebhookSettings, WorkerSettings } from '@svc/wiring';
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { defineStage } from '../stacks/schema.ts';
import staging from '../stacks/staging.ts';
import { deployRole, deployRoleActions, deployRoleTrust } from './ci-role.ts';
import { clusterGroups, metricsNamespace } from './settings.ts';
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
    protect: boolean;
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
    expect(app.protect).toBe(false);
    expect(app.home).toBe('aws');
  });

  it('gives each function its own handler, present in the repository and exporting `handler`', async () => {
    const { standIns } = await deploy('staging');
    const handlers = {
      ApiFunction: 'packages/api/src/entries/lambda.handler',
      Webhook: 'packages/api/src/entries/webhook-lambda.handler',
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
      // Every role the deploy creates carries the stage's permissions boundary (infra/ci-role.ts).
      expect(declared.args.transform).toMatchObject({
        function: { tracingConfig: { mode: 'Active' } },
        role: {
          permissionsBoundary: 'arn:aws:iam::123456789012:policy/preview-composition-staging-boundary',
        },
      });
      // SST's links of the table and queues grant dynamodb:* and sqs:*: only secrets are linked.
      for (const linked of (declared.args.link as unknown[]) ?? []) expect(linked).toBeInstanceOf(sst.Secret);
    }
    expect(fn(standIns, 'Webhook').args.url).toEqual({ cors: false });
    expect(fn(standIns, 'ApiFunction').args.url).toBeUndefined();
    expect(fn(standIns, 'Worker').args.url).toBeUndefined();
  });

  it("leaves CORS to the app: neither API Gateway nor the webhook's URL answers other origins", async () => {
    const { standIns } = await deploy('staging');
    const api = standIns.declared.find((d) => d.type === 'sst.aws.ApiGatewayV2');
    expect(api?.args.cors).toBe(false);
    expect(fn(standIns, 'Webhook').args.url).toEqual({ cors: false });
  });

  it('routes the API to the API function only, /healthz on a route of its own; the webhook is its own URL', async () => {
    const { standIns } = await deploy('staging');
    const routes = standIns.declared.filter((d) => d.type === 'sst.aws.ApiGatewayV2.route');
    const handler = 'arn:aws:lambda:eu-west-1:123456789012:function:ApiFunction';
    expect(routes.map((r) => r.args)).toEqual([
      { route: '$default', handler },
      { route: 'GET /healthz', handler },
    ]);
  });

  it('gives each function the environment its entry parses, with names from the resources and no secret value', async () => {
    const { standIns } = await deploy('staging');
    const entries: [string, v.GenericSchema][] = [
      ['ApiFunction', ServiceSettings({ allowDev: false })],
      ['Webhook', WebhookSettings],
      ['Worker', WorkerSettings],
    ];
    for (const [name, settings] of entries) {
      const { environment } = fn(standIns, name);
      // What Lambda adds (the region) and the linked secrets a deploy must set (the cursor key).
      const linked = JSON.parse(environment.SVC_SECRETS ?? '{}') as Record<string, string>;
      const given = { ...environment, AWS_REGION: staging.region };
      if (linked.CURSOR_KEY) Object.assign(given, { CURSOR_KEY: 'k'.repeat(48) });
      expect(() => parseEnvironment(settings, given), name).not.toThrow();
      expect(environment).toMatchObject({
        TABLE_NAME: 'Table-table-name',
        JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Jobs',
        PREVIEW_URL_TEMPLATE: `https://{id}.${staging.previewDomain}/`,
      });
      expect(environment.SVC_RELEASE).toMatch(/\S/);
      expect(environment.SVC_COMMIT).toMatch(/^([0-9a-f]{7,40}|unknown)$/);
      // Secrets reach a function through its SST links (encrypted into its package), never its environment.
      for (const value of Object.values(environment)) expect(value, name).not.toMatch(/secret:/);
      expect(environment).not.toHaveProperty('CURSOR_KEY');
      expect(environment).not.toHaveProperty('NODE_OPTIONS');
    }
    const api = fn(standIns, 'ApiFunction').environment;
    expect(parseEnvironment(Auth.authEnvironment({ allowDev: false }), api).mode).toBe(staging.authMode);
    const clusters = {
      [staging.eksClusterName]: { eks_cluster: staging.eksClusterName, region: staging.region },
    };
    expect(JSON.parse(api.CLUSTERS ?? '')).toEqual(clusters);
    expect(api.DEAD_LETTER_QUEUE_URL).toBe('https://sqs.eu-west-1.amazonaws.com/123456789012/JobsDeadLetter');
    const worker = fn(standIns, 'Worker').environment;
    expect(JSON.parse(worker.CLUSTERS ?? '')).toEqual(clusters);
    expect(worker.PREVIEW_QUEUE_PREFIX).toBe('preview_staging_');
    const webhook = fn(standIns, 'Webhook').environment;
    expect(webhook).not.toHaveProperty('CLUSTERS');
    expect(webhook).not.toHaveProperty('AUTH_MODE');
    expect(worker).not.toHaveProperty('AUTH_MODE');
  });

  it('links each function the secrets it reads and no other, naming in SVC_SECRETS which variable each fills', async () => {
    const { standIns } = await deploy('staging');
    const linked = (name: string) =>
      ((fn(standIns, name).args.link as { name: string }[]) ?? []).map((secret) => secret.name).sort();
    const forge = ['ForgeAppId', 'ForgePrivateKey', 'ForgeWebhookSecret', 'ForgeWebhookSecretPrevious'];
    expect(linked('ApiFunction')).toEqual(['CursorKey', ...forge].sort());
    expect(linked('Worker')).toEqual(['CursorKey', ...forge].sort());
    // The webhook checks signatures: its webhook secrets, never the cursor key or the app's private key.
    expect(linked('Webhook')).toEqual(['ForgeWebhookSecret', 'ForgeWebhookSecretPrevious']);
    expect(JSON.parse(fn(standIns, 'Webhook').environment.SVC_SECRETS ?? '')).toEqual({
      FORGE_WEBHOOK_SECRET: 'ForgeWebhookSecret',
      FORGE_WEBHOOK_SECRET_PREVIOUS: 'ForgeWebhookSecretPrevious',
    });
    expect(JSON.parse(fn(standIns, 'ApiFunction').environment.SVC_SECRETS ?? '')).toMatchObject({
      CURSOR_KEY: 'CursorKey',
      FORGE_PRIVATE_KEY: 'ForgePrivateKey',
    });
  });

  it("keeps the API's environment well under Lambda's 4 KB in oidc mode with every setting", async () => {
    vi.doMock('../stacks/staging.ts', () => ({
      default: {
        ...staging,
        authMode: 'oidc',
        authSettings: {
          issuer: 'https://login.acme-corporation.example.com/realms/engineering',
          client_id: 'preview-composition-service',
          groups_claim: 'groups',
          admin_groups: ['platform-admins', 'sre-oncall'],
        },
        messageTopics: ['orders-*', 'billing-*', 'payments-*', 'shipping-events', 'inventory-events'],
      },
    }));
    const { standIns } = await deploy('staging');
    const { environment } = fn(standIns, 'ApiFunction');
    // What SST adds for the links: SST_KEY (a base64 AES-256 key) and SST_KEY_FILE.
    const sst = { SST_KEY: 'k'.repeat(44), SST_KEY_FILE: 'resource.enc' };
    const size = Object.entries({ ...environment, ...sst }).reduce(
      (n, [k, value]) => n + k.length + value.length,
      0,
    );
    expect(size).toBeLessThan(2048);
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
    const secretsOf = (name: string) => JSON.parse(fn(standIns, name).environment.SVC_SECRETS ?? '{}');
    expect(secretsOf('ApiFunction').OIDC_CLIENT_SECRET).toBe('OidcClientSecret');
    expect(secretsOf('Worker')).not.toHaveProperty('OIDC_CLIENT_SECRET');
    expect(secretsOf('Webhook')).not.toHaveProperty('OIDC_CLIENT_SECRET');
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
    expect(actions.filter((a) => a.startsWith('sns:') || a === 'sqs:CreateQueue')).toEqual([]);
    expect(actions.some((a) => a.endsWith(':*'))).toBe(false);
    expect(resourcesOf(permissions, 'dynamodb:Query')).toEqual([
      'arn:aws:dynamodb:eu-west-1:123456789012:table/Table',
      'arn:aws:dynamodb:eu-west-1:123456789012:table/Table/index/*',
    ]);
    expect(resourcesOf(permissions, 'eks:DescribeCluster')).toEqual([
      `arn:aws:eks:eu-west-1:123456789012:cluster/${staging.eksClusterName}`,
    ]);
    // The dead-letter replay reads the dead-letter queue, and only it.
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      expect(resourcesOf(permissions, action)).toEqual(['arn:aws:sqs:eu-west-1:123456789012:JobsDeadLetter']);
    }
  });

  it("tells the API the stage's message topics, the ones the worker's policy grants", async () => {
    vi.doMock('../stacks/staging.ts', () => ({
      default: { ...staging, messageTopics: ['orders', 'billing-*'] },
    }));
    const { standIns } = await deploy('staging');
    const api = fn(standIns, 'ApiFunction').environment;
    expect(JSON.parse(api.MESSAGE_TOPICS ?? '')).toEqual(['orders', 'billing-*']);
    const parsed = v.parse(AwsEnvironment, {
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
    // The stage's own queues only: staging's worker cannot touch production's in the same account.
    for (const action of ['sqs:CreateQueue', 'sqs:SetQueueAttributes', 'sqs:DeleteQueue']) {
      expect(resourcesOf(permissions, action)).toEqual([
        'arn:aws:sqs:us-east-2:123456789012:preview_staging_*',
      ]);
    }
    // A subscription's calls are authorized on its topic, like the subscribing.
    for (const action of [
      'sns:Subscribe',
      'sns:ListSubscriptionsByTopic',
      'sns:Unsubscribe',
      'sns:GetSubscriptionAttributes',
    ]) {
      expect(resourcesOf(permissions, action)).toEqual([
        'arn:aws:sns:us-east-2:123456789012:orders',
        'arn:aws:sns:us-east-2:123456789012:billing-*',
      ]);
    }
    expect(resourcesOf(permissions, 'eks:DescribeCluster')).toEqual([
      `arn:aws:eks:us-east-2:123456789012:cluster/${staging.eksClusterName}`,
    ]);
  });

  it("subscribes the worker to the job queue with partial batch responses at the stage's maximum concurrency, and schedules every sweep on it without retries", async () => {
    const { standIns } = await deploy('staging');
    const worker = 'arn:aws:lambda:eu-west-1:123456789012:function:Worker';
    expect(standIns.of('sst.aws.Queue.subscribe').get('Jobs')).toMatchObject({
      subscriber: worker,
      batch: { partialResponses: true },
      transform: { eventSourceMapping: { scalingConfig: { maximumConcurrency: 10 } } },
    });
    const crons = [...standIns.of('sst.aws.CronV2').values()];
    expect(crons.length).toBeGreaterThan(0);
    for (const cron of crons) expect(cron).toMatchObject({ function: worker, retries: 0 });
    // Scheduler invokes the worker asynchronously: Lambda's own retries (2 by default) are off too.
    expect(fn(standIns, 'Worker').args.retries).toBe(0);
  });

  it("throttles the API's stage, reserves the public webhook's concurrency, and drops a scheduled run that waited two minutes", async () => {
    const { standIns } = await deploy('staging');
    expect(standIns.of('sst.aws.ApiGatewayV2').get('Api')).toEqual({
      cors: false,
      transform: {
        stage: {
          defaultRouteSettings: {
            throttlingRateLimit: 50,
            throttlingBurstLimit: 100,
            detailedMetricsEnabled: true,
          },
        },
      },
    });
    expect(fn(standIns, 'Webhook').args.concurrency).toEqual({ reserved: staging.webhookConcurrency });
    expect(fn(standIns, 'ApiFunction').args.concurrency).toBeUndefined();
    expect(fn(standIns, 'Worker').args.transform).toMatchObject({
      eventInvokeConfig: { maximumEventAgeInSeconds: 120 },
    });
    // What SST makes of it: the worker's asynchronous invocations (only the schedules') expire.
    const invokeConfig = standIns
      .synthesis()
      .resources.find((r) => r.type === 'aws:lambda/functionEventInvokeConfig:FunctionEventInvokeConfig');
    expect(invokeConfig?.props).toMatchObject({ maximumRetryAttempts: 0, maximumEventAgeInSeconds: 120 });
    expect(invokeConfig?.logical).toBe('WorkerEventInvokeConfig');
  });

  it("serves the API on the stage's custom domain, which is then the origin browsers must send", async () => {
    const { publicOrigin: _, ...rest } = staging;
    vi.doMock('../stacks/staging.ts', () => ({ default: { ...rest, domain: 'svc.acme.io' } }));
    const { standIns } = await deploy('staging');
    expect(standIns.of('sst.aws.ApiGatewayV2').get('Api')).toMatchObject({ domain: 'svc.acme.io' });
    const auth = JSON.parse(fn(standIns, 'ApiFunction').environment.AUTH_SETTINGS ?? '{}');
    expect(auth.public_origin).toBe('https://svc.acme.io');
    const types = standIns.synthesis().resources.map((r) => r.type);
    expect(types).toEqual(
      expect.arrayContaining(['aws:acm/certificate:Certificate', 'aws:apigatewayv2/domainName:DomainName']),
    );
  });

  it("takes the API's own URL as the origin when the stage names neither an origin nor a domain", async () => {
    const { publicOrigin: _, ...rest } = staging;
    vi.doMock('../stacks/staging.ts', () => ({ default: rest }));
    const { standIns } = await deploy('staging');
    const auth = JSON.parse(fn(standIns, 'ApiFunction').environment.AUTH_SETTINGS ?? '{}');
    expect(auth.public_origin).toBe('https://api.execute-api.eu-west-1.amazonaws.com');
  });

  it('takes the maximum concurrency of the worker from the stage', async () => {
    vi.doMock('../stacks/staging.ts', () => ({ default: { ...staging, workerConcurrency: 4 } }));
    const { standIns } = await deploy('staging');
    expect(standIns.of('sst.aws.Queue.subscribe').get('Jobs')).toMatchObject({
      transform: { eventSourceMapping: { scalingConfig: { maximumConcurrency: 4 } } },
    });
  });

  it("runs the API and the worker in the stage's VPC when it names one, the webhook never", async () => {
    const vpc = { privateSubnets: ['subnet-0123456789abcdef0'], securityGroups: ['sg-0123456789abcdef0'] };
    vi.doMock('../stacks/staging.ts', () => ({ default: { ...staging, vpc } }));
    const { standIns } = await deploy('staging');
    expect(fn(standIns, 'ApiFunction').args.vpc).toEqual(vpc);
    expect(fn(standIns, 'Worker').args.vpc).toEqual(vpc);
    expect(fn(standIns, 'Webhook').args.vpc).toBeUndefined();
    standIns.restore();
    vi.doUnmock('../stacks/staging.ts');
    vi.resetModules();
    const plain = await deploy('staging');
    for (const name of ['ApiFunction', 'Worker', 'Webhook'])
      expect(fn(plain.standIns, name).args.vpc).toBeUndefined();
  });

  it('installs the htmx the console is tested with beside the API bundle, and ships no source-map flag without source maps', async () => {
    const { standIns } = await deploy('staging');
    const tested = JSON.parse(readFileSync('node_modules/htmx.org/package.json', 'utf8')).version;
    expect(fn(standIns, 'ApiFunction').args.nodejs).toMatchObject({ install: { 'htmx.org': tested } });
    for (const name of ['ApiFunction', 'Worker', 'Webhook']) {
      const { args, environment } = fn(standIns, name);
      expect((args.nodejs as { sourcemap?: boolean }).sourcemap).toBeUndefined();
      expect(environment.NODE_OPTIONS ?? '').not.toMatch(/enable-source-maps/);
    }
  });

  it("lists the stage's clusters to the API and the worker, each described and with its access entries, in its own region", async () => {
    const clusters = {
      eu: { eksClusterName: 'prod-eu' },
      us: { eksClusterName: 'prod-us', region: 'us-east-1' },
    };
    vi.doMock('../stacks/staging.ts', () => ({ default: { ...staging, clusters } }));
    const { standIns } = await deploy('staging');
    const expected = {
      [staging.eksClusterName]: { eks_cluster: staging.eksClusterName, region: 'eu-west-1' },
      eu: { eks_cluster: 'prod-eu', region: 'eu-west-1' },
      us: { eks_cluster: 'prod-us', region: 'us-east-1' },
    };
    for (const name of ['ApiFunction', 'Worker']) {
      const { environment, permissions } = fn(standIns, name);
      expect(JSON.parse(environment.CLUSTERS ?? '')).toEqual(expected);
      const parsed = parseEnvironment(WorkerSettings, {
        ...environment,
        AWS_REGION: 'eu-west-1',
        CURSOR_KEY: 'k'.repeat(48),
      });
      expect(parsed.kube.clusters.map((c) => c.name)).toEqual([staging.eksClusterName, 'eu', 'us']);
      expect(resourcesOf(permissions, 'eks:DescribeCluster')).toEqual([
        `arn:aws:eks:eu-west-1:123456789012:cluster/${staging.eksClusterName}`,
        'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu',
        'arn:aws:eks:us-east-1:123456789012:cluster/prod-us',
      ]);
    }
    const entries = standIns.of('aws.eks.AccessEntry');
    expect([...entries.keys()]).toEqual([
      'ApiClusterAccess',
      'ApiClusterAccessEu',
      'ApiClusterAccessUs',
      'WorkerClusterAccess',
      'WorkerClusterAccessEu',
      'WorkerClusterAccessUs',
    ]);
    expect(entries.get('WorkerClusterAccessUs')).toEqual({
      clusterName: 'prod-us',
      region: 'us-east-1',
      principalArn: 'arn:aws:iam::123456789012:role/WorkerRole',
      kubernetesGroups: [clusterGroups.worker],
      type: 'STANDARD',
    });
    expect(fn(standIns, 'Webhook').environment).not.toHaveProperty('CLUSTERS');
  });

  it("gives the API's and the worker's roles, not the webhook's, an EKS access entry each in an RBAC group of its own", async () => {
    const { standIns } = await deploy('staging');
    const entries = standIns.of('aws.eks.AccessEntry');
    expect([...entries.values()]).toEqual([
      {
        clusterName: staging.eksClusterName,
        kubernetesGroups: ['preview-composition-api'],
        principalArn: 'arn:aws:iam::123456789012:role/ApiFunctionRole',
        type: 'STANDARD',
      },
      {
        clusterName: staging.eksClusterName,
        kubernetesGroups: ['preview-composition-worker'],
        principalArn: 'arn:aws:iam::123456789012:role/WorkerRole',
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
        'ExpirySweepSilent',
        'IdempotencySweepSilent',
        'RedispatchSweepSilent',
        'ForgeDispatchSweepSilent',
        'ForgeReconcileSilent',
        'SleepSweepSilent',
      ].sort(),
    );
    for (const [name, alarm] of alarms) {
      expect(alarm.name, name).toBe(`preview-composition/staging/${name}`);
      expect(alarm.alarmActions, name).toEqual(['arn:aws:sns:eu-west-1:123456789012:Alarms']);
      expect(alarm.treatMissingData, name).toBe(name.endsWith('Silent') ? 'breaching' : 'notBreaching');
      const section = String(alarm.alarmDescription).match(/docs\/runbooks\.md#([a-z0-9-]+)$/)?.[1];
      expect(anchors.has(section ?? ''), `${name} → ${section}`).toBe(true);
    }
    expect(alarms.get('DeadLetterNotEmpty')?.dimensions).toEqual({ QueueName: 'JobsDeadLetter-queue-name' });
    expect(alarms.get('WorkerErrors')?.dimensions).toEqual({ FunctionName: 'Worker-function-name' });
    expect(alarms.get('WebhookSignaturesRejected')).toMatchObject({
      namespace: emittedNamespace,
      metricName: 'WebhookDeliveriesRejected',
      dimensions: { service: 'webhook', stage: 'staging' },
    });
    expect(metricsNamespace).toBe(emittedNamespace);
    // Staging's recipient (its stage file names one).
    expect(standIns.of('aws.sns.TopicSubscription').get('AlarmsEmail')).toMatchObject({
      endpoint: staging.alarmEmail,
    });
  });

  it("raises a schedule's alarm when its heartbeat is silent, missing data counting as silence", async () => {
    const { standIns } = await deploy('staging');
    expect(standIns.of('aws.cloudwatch.MetricAlarm').get('ExpirySweepSilent')).toMatchObject({
      namespace: emittedNamespace,
      metricName: ServiceMetric.SweepHeartbeat,
      dimensions: { service: 'worker', stage: 'staging', schedule: 'expiry-sweep' },
      statistic: 'Sum',
      period: 300,
      evaluationPeriods: 2,
      comparisonOperator: 'LessThanThreshold',
      threshold: 1,
      treatMissingData: 'breaching',
    });
    // What emits it: every scheduled run of the worker that finishes.
    const handler = readFileSync('packages/worker/src/lambda-handler.ts', 'utf8');
    expect(handler).toMatch(/count\(ServiceMetric\.SweepHeartbeat, schedule\)/);
    expect(JSON.stringify([...standIns.of('sst.aws.CronV2').values()].map((c) => c.event))).toContain(
      '<aws.scheduler.scheduled-time>',
    );
  });

  it("notifies the stage's own SNS topic as well when it names one", async () => {
    const pager = 'arn:aws:sns:eu-west-1:123456789012:pager';
    vi.doMock('../stacks/staging.ts', () => ({ default: { ...staging, alarmTopicArn: pager } }));
    const { standIns } = await deploy('staging');
    for (const [name, alarm] of standIns.of('aws.cloudwatch.MetricAlarm')) {
      expect(alarm.alarmActions, name).toEqual(['arn:aws:sns:eu-west-1:123456789012:Alarms', pager]);
      expect(alarm.okActions, name).toEqual(['arn:aws:sns:eu-west-1:123456789012:Alarms', pager]);
    }
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
      apiFunction: 'ApiFunction-function-name',
      workerFunction: 'Worker-function-name',
      webhookFunction: 'Webhook-function-name',
      apiRole: 'arn:aws:iam::123456789012:role/ApiFunctionRole',
      workerRole: 'arn:aws:iam::123456789012:role/WorkerRole',
      webhookRole: 'arn:aws:iam::123456789012:role/WebhookRole',
      alarmTopic: 'arn:aws:sns:eu-west-1:123456789012:Alarms',
    });
  });

  it('refuses to deploy production while its domain and cluster are placeholders, or without an alarm recipient', async () => {
    standIns = installSstStandIns('production');
    const config = await loadConfig();
    await expect(config.app({ stage: 'production' })).rejects.toThrow(
      /no alarm recipient: set alarmEmail or alarmTopicArn.*previewDomain "preview\.example\.com" is a placeholder.*eksClusterName "change-me" is a placeholder/,
    );
    expect(standIns.declared).toEqual([]);
  });

  it('deploys a production stage with real settings and a recipient, and refuses it without the recipient', async () => {
    const real = {
      ...staging,
      previewDomain: 'preview.acme.io',
      eksClusterName: 'prod-eu',
      publicOrigin: 'https://svc.acme.io',
    };
    vi.doMock('../stacks/production.ts', () => ({ default: { ...real, alarmEmail: undefined } }));
    standIns = installSstStandIns('production');
    await expect((await loadConfig()).app({ stage: 'production' })).rejects.toThrow(
      /^stage "production" cannot be deployed: no alarm recipient/,
    );
    standIns.restore();
    vi.doUnmock('../stacks/production.ts');
    vi.resetModules();
    vi.doMock('../stacks/production.ts', () => ({
      default: { ...real, alarmEmail: undefined, alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:pager' },
    }));
    const { app, outputs } = await deploy('production');
    expect(outputs.alarmTopic).toMatch(/:Alarms$/);
    // sst remove refuses a protected stage.
    expect(app.protect).toBe(true);
    vi.doUnmock('../stacks/production.ts');
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

describe('the deploy workflows', () => {
  const workflow = (name: string) => YAML.parse(readFileSync(`.github/workflows/${name}.yml`, 'utf8'));
  type Step = { uses?: string; run?: string };
  type Job = { environment?: string; concurrency?: { group: string }; needs?: string; steps: Step[] };

  it('deploys staging, then production, each in a concurrency group of its own, checking /version and /healthz after each deploy', () => {
    const deploy = workflow('deploy');
    expect(deploy.concurrency).toBeUndefined();
    const jobs = deploy.jobs as Record<string, Job>;
    expect(jobs.production?.needs).toBe('staging');
    for (const stage of ['staging', 'production']) {
      const job = jobs[stage] as Job;
      expect(job.environment).toBe(stage);
      expect(job.concurrency).toEqual({ group: `deploy-${stage}`, 'cancel-in-progress': false });
      const runs = job.steps.map((step) => step.run ?? '');
      const deployed = runs.indexOf(`npx sst deploy --stage ${stage}`);
      expect(deployed).toBeGreaterThan(-1);
      expect(runs.slice(deployed + 1)).toContain('node infra/deploy-check.ts --commit "$SVC_COMMIT"');
      // Credentials come after the install scripts and the stage's description check, right before the deploy.
      const credentials = job.steps.findIndex((step) =>
        step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
      );
      expect(credentials, stage).toBe(deployed - 1);
      for (const before of [
        'npm ci --no-audit --no-fund',
        `node stacks/check.ts ${stage} --described`,
        'npx sst install',
      ])
        expect(runs.indexOf(before), `${stage}: ${before}`).toBeGreaterThan(-1);
      expect(runs.indexOf(`node stacks/check.ts ${stage} --described`)).toBeLessThan(credentials);
      expect(runs.indexOf('npm ci --no-audit --no-fund')).toBeLessThan(credentials);
    }
    expect(existsSync('infra/deploy-check.ts')).toBe(true);
  });

  it('pins every action of every workflow by commit SHA', () => {
    for (const name of ['ci', 'deploy']) {
      for (const job of Object.values(workflow(name).jobs as Record<string, Job>)) {
        for (const step of job.steps.filter((s) => s.uses)) {
          expect(step.uses, name).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
        }
      }
    }
  });
});

describe('the CI deploy role', () => {
  it("trusts GitHub's OIDC tokens of this repository's jobs in the stage's environment, and nothing else", () => {
    const trust = deployRoleTrust({
      accountId: '123456789012',
      repository: 'acme/preview',
      environment: 'staging',
    });
    expect(trust.Statement).toEqual([
      {
        Effect: 'Allow',
        Principal: {
          Federated: 'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com',
        },
        Action: 'sts:AssumeRoleWithWebIdentity',
        Condition: {
          StringEquals: {
            'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
            'token.actions.githubusercontent.com:sub': 'repo:acme/preview:environment:staging',
          },
        },
      },
    ]);
  });

  it('is the permission list docs/deploy.md shows, for a stage with every option', () => {
    const everything = defineStage({
      ...staging,
      domain: 'svc.acme.io',
      vpc: { privateSubnets: ['subnet-0123456789abcdef0'], securityGroups: ['sg-0123456789abcdef0'] },
    });
    const { role } = deployRole({
      accountId: '123456789012',
      repository: 'acme/preview',
      stage: 'staging',
      settings: everything,
    });
    const doc = readFileSync('docs/deploy.md', 'utf8');
    const listed = doc.match(/<!-- deploy-role-actions -->\n```text\n([\s\S]*?)```/)?.[1] ?? '';
    expect(listed.trim().split('\n')).toEqual(deployRoleActions(role.policies));
    // Only its denial names a wildcard action.
    for (const { policy } of role.policies)
      for (const statement of policy.Statement.filter((st) => st.Effect === 'Allow'))
        for (const action of statement.Action) expect(action).not.toMatch(/\*/);
  });
});
