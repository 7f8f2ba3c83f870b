import { AwsEnvironment } from '@svc/aws';
import { Auth, Compositions, PublicOriginEnvironment, parseEnvironment, Resources } from '@svc/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import service from '../packages/api/package.json' with { type: 'json' };
import production from '../stacks/production.ts';
import { defineStage, deployProblems, StageSettings } from '../stacks/schema.ts';
import staging from '../stacks/staging.ts';
import {
  apiArgs,
  deployedBuild,
  functionEnvironments,
  functionPermissions,
  functionSecrets,
  lambdaRuntime,
  publicOrigin,
  queueArgs,
  rateExpression,
  scheduleArgs,
  stageClusters,
  tableArgs,
  tableTransform,
  workerSubscription,
} from './settings.ts';

describe('infra settings', () => {
  it('declares every key attribute and index of the shared table declaration', () => {
    const args = tableArgs();
    expect(args.primaryIndex).toEqual({ hashKey: 'pk', rangeKey: 'sk' });
    for (const index of Resources.table.globalIndexes) {
      expect(args.globalIndexes[index.name]).toEqual({
        hashKey: index.partitionKey,
        rangeKey: index.sortKey,
      });
      expect(args.fields[index.partitionKey]).toBe('string');
    }
    expect(args.ttl).toBe(Resources.table.ttlAttribute);
  });

  it('bills on demand with point-in-time recovery', () => {
    expect(tableTransform(production)).toMatchObject({
      billingMode: 'PAY_PER_REQUEST',
      pointInTimeRecovery: { enabled: true },
    });
  });

  it('gives the job queue its visibility timeout and dead-letter redrive', () => {
    const { jobs } = queueArgs();
    expect(jobs.visibilityTimeout).toBe(`${Resources.jobQueue.visibilityTimeoutSeconds} seconds`);
    expect(jobs.retry).toBe(Resources.jobQueue.maxReceiveCount);
    expect(workerSubscription(staging).batch.partialResponses).toBe(true);
  });

  it('runs on Node.js 24', () => {
    expect(lambdaRuntime).toBe('nodejs24.x');
  });

  it('writes EventBridge rate expressions with the right unit', () => {
    expect(rateExpression(60)).toBe('rate(1 minute)');
    expect(rateExpression(300)).toBe('rate(5 minutes)');
    expect(rateExpression(3600)).toBe('rate(1 hour)');
    expect(rateExpression(7200)).toBe('rate(2 hours)');
    expect(rateExpression(86400)).toBe('rate(1 day)');
    expect(() => rateExpression(30)).toThrow();
  });

  it('schedules every declared sweep with its name in the event', () => {
    const args = scheduleArgs();
    expect(args.map((a) => a.event.schedule)).toEqual(Resources.schedules.map((s) => s.name));
    expect(args[0]?.id).toMatch(/^[A-Z][A-Za-z]+$/);
  });

  const build = { release: '0.1.0', commit: 'a'.repeat(40) };
  const names = {
    tableName: 't',
    jobQueueUrl: 'q',
    deadLetterQueueUrl: 'd',
    publicOrigin: 'https://svc.acme.io',
  };

  it('passes the stage auth mode, names and build to the functions, and which linked secret fills which variable', () => {
    const { api } = functionEnvironments(staging, names, build, 'staging');
    expect(api).toMatchObject({
      AUTH_MODE: 'token',
      TABLE_NAME: 't',
      JOB_QUEUE_URL: 'q',
      DEAD_LETTER_QUEUE_URL: 'd',
    });
    expect(api).not.toHaveProperty('CURSOR_KEY');
    expect(JSON.parse(api.SVC_SECRETS ?? '')).toMatchObject({ CURSOR_KEY: 'CursorKey' });
    expect(api.PREVIEW_URL_TEMPLATE).toBe('https://{id}.preview.staging.example.com/');
    expect(api).toMatchObject({ SVC_RELEASE: '0.1.0', SVC_COMMIT: 'a'.repeat(40) });
  });

  it('sets every variable the runtime requires, and each function only what it reads', () => {
    const environments = functionEnvironments(production, names, build, 'production');
    const required = Object.entries(AwsEnvironment.entries)
      .filter(([name, schema]) => schema.type !== 'optional' && name !== 'AWS_REGION')
      .map(([name]) => name);
    const common = [...required, 'SVC_STAGE', 'SVC_RELEASE', 'SVC_COMMIT', 'SVC_SECRETS'];
    expect(Object.keys(environments.webhook).sort()).toEqual(common.sort());
    expect(Object.keys(environments.worker).sort()).toEqual(
      [...common, 'AUTH_SETTINGS', 'CLUSTERS', 'PREVIEW_QUEUE_PREFIX'].sort(),
    );
    expect(Object.keys(environments.api).sort()).toEqual(
      [...common, 'CLUSTERS', 'MESSAGE_TOPICS', 'DEAD_LETTER_QUEUE_URL', 'AUTH_MODE', 'AUTH_SETTINGS'].sort(),
    );
  });

  it("gives the auth mode's secret to the API only, the webhook secrets to every function and the app's key to the API and worker only", () => {
    const oidc = { ...staging, authMode: 'oidc' as const };
    expect(functionSecrets(oidc).api.OIDC_CLIENT_SECRET).toEqual({ secret: 'OidcClientSecret' });
    expect(functionSecrets({ ...staging, authMode: 'shared-token' }).api.AUTH_SHARED_TOKEN).toEqual({
      secret: 'AuthSharedToken',
    });
    expect(functionSecrets(staging).api).not.toHaveProperty('AUTH_SHARED_TOKEN');
    for (const secrets of Object.values(functionSecrets(oidc))) {
      expect(secrets.FORGE_WEBHOOK_SECRET).toEqual({ secret: 'ForgeWebhookSecret', placeholder: '' });
    }
    expect(functionSecrets(oidc).worker).not.toHaveProperty('OIDC_CLIENT_SECRET');
    expect(functionSecrets(oidc).api.CURSOR_KEY).toEqual({ secret: 'CursorKey' });
    expect(functionSecrets(oidc).worker.CURSOR_KEY).toEqual({ secret: 'CursorKey' });
    expect(Object.keys(functionSecrets(oidc).webhook).sort()).toEqual([
      'FORGE_WEBHOOK_SECRET',
      'FORGE_WEBHOOK_SECRET_PREVIOUS',
    ]);
  });

  it('names no wildcard action, and grants a wildcard resource only to actions without resource types', () => {
    const permissions = functionPermissions({
      table: 'table',
      tableIndexes: 'table/index/*',
      jobs: 'jobs',
      deadLetter: 'dead',
      clusters: ['cluster'],
      previewQueues: 'preview_production_*',
      topics: ['topic'],
    });
    const unscoped = new Set([
      'sqs:ListQueues',
      'sns:ListTopics',
      'xray:PutTraceSegments',
      'xray:PutTelemetryRecords',
    ]);
    for (const statements of Object.values(permissions)) {
      for (const { actions, resources } of statements) {
        for (const action of actions) expect(action).not.toMatch(/\*/);
        if (resources.includes('*')) for (const action of actions) expect(unscoped.has(action)).toBe(true);
      }
    }
  });

  it('reports the commit the deploy names, and the package version as the release', () => {
    expect(deployedBuild({ SVC_COMMIT: 'b'.repeat(40) })).toEqual({
      release: service.version,
      commit: 'b'.repeat(40),
    });
    expect(deployedBuild({ SVC_RELEASE: '2025.06.1', SVC_COMMIT: 'abc1234' })).toEqual({
      release: '2025.06.1',
      commit: 'abc1234',
    });
  });

  it('reports an unknown commit when the deploy names none, and refuses one that is not a SHA', () => {
    expect(deployedBuild({})).toEqual({ release: service.version, commit: 'unknown' });
    expect(deployedBuild({ SVC_COMMIT: '' }).commit).toBe('unknown');
    expect(() => deployedBuild({ SVC_COMMIT: 'main' })).toThrow(/SVC_COMMIT/);
    expect(() => deployedBuild({ SVC_COMMIT: 'A'.repeat(40) })).toThrow(/SVC_COMMIT/);
  });

  it("passes auth settings the functions' parser accepts", () => {
    for (const stage of [staging, production]) {
      const { api } = functionEnvironments(stage, names, build, 'production');
      const parsed = parseEnvironment(Auth.authEnvironment({ allowDev: false }), api);
      expect(parsed.mode).toBe(stage.authMode);
      // Browsers' Origin is checked against the stage's public origin, never a Host-derived one.
      expect(parsed).toMatchObject({ publicOrigin: names.publicOrigin });
    }
  });

  it('tells the API where baselines may be, when the stage lists it', () => {
    expect(
      functionEnvironments(production, names, build, 'production').api.PREVIEW_NAMESPACES,
    ).toBeUndefined();
    const listed = { ...production, previewNamespaces: ['staging', 'qa'] };
    expect(functionEnvironments(listed, names, build, 'production').api.PREVIEW_NAMESPACES).toBe(
      'staging,qa',
    );
    expect(
      v.safeParse(StageSettings, { ...production, previewNamespaces: ['Not_A_Namespace'] }).success,
    ).toBe(false);
  });

  it('takes the public origin from the stage, else its custom domain, else leaves it to the API URL; over https', () => {
    const { publicOrigin: _none, ...without } = production;
    expect(publicOrigin(v.parse(StageSettings, without))).toBeUndefined();
    expect(publicOrigin(v.parse(StageSettings, { ...without, domain: 'svc.acme.io' }))).toBe(
      'https://svc.acme.io',
    );
    expect(publicOrigin(production)).toBe(production.publicOrigin);
    expect(v.safeParse(StageSettings, { ...production, publicOrigin: 'http://svc.acme.io' }).success).toBe(
      false,
    );
    const api = { AUTH_MODE: 'token', AUTH_SETTINGS: '{}' };
    expect(() => parseEnvironment(Auth.authEnvironment({ allowDev: false }), api)).toThrow(
      /AUTH_SETTINGS\.public_origin/,
    );
  });

  it('never lets a cloud stage select dev auth', () => {
    const result = v.safeParse(StageSettings, { ...production, authMode: 'dev' });
    expect(result.success).toBe(false);
  });

  it('rejects a malformed stage', () => {
    expect(v.safeParse(StageSettings, { ...production, region: 'mars' }).success).toBe(false);
    expect(v.safeParse(StageSettings, { ...production, previewDomain: 'Not A Domain' }).success).toBe(false);
    expect(v.safeParse(StageSettings, { ...production, extra: 1 }).success).toBe(false);
  });
});

describe("the stage's clusters", () => {
  const stage = defineStage({
    region: 'eu-west-1',
    eksClusterName: 'prod-eu',
    previewDomain: 'preview.acme.io',
    publicOrigin: 'https://svc.acme.io',
    authMode: 'token',
    alarmEmail: 'ops@acme.io',
    clusters: {
      us: { eksClusterName: 'prod-us', region: 'us-east-1' },
      eu2: { eksClusterName: 'prod-eu-2' },
    },
  });

  it('are its own cluster, named after itself, and the further ones, in the stage’s region unless told', () => {
    expect(stageClusters(stage)).toEqual([
      { name: 'prod-eu', eksClusterName: 'prod-eu', region: 'eu-west-1' },
      { name: 'us', eksClusterName: 'prod-us', region: 'us-east-1' },
      { name: 'eu2', eksClusterName: 'prod-eu-2', region: 'eu-west-1' },
    ]);
    expect(deployProblems('production', stage)).toEqual([]);
  });

  it('refuse a further cluster named like the stage’s own, a placeholder, or a name that is not one', () => {
    const clashing = { ...stage, clusters: { 'prod-eu': { eksClusterName: 'other' } } };
    expect(deployProblems('staging', clashing)).toEqual([
      'clusters names "prod-eu", the name of the stage\'s own eksClusterName: name it otherwise',
    ]);
    const placeholder = { ...stage, clusters: { us: { eksClusterName: 'change-me' } } };
    expect(deployProblems('production', placeholder)).toEqual([
      'clusters.us.eksClusterName "change-me" is a placeholder: set its EKS cluster',
    ]);
    expect(() => defineStage({ ...stage, clusters: { 'not a name': { eksClusterName: 'x' } } })).toThrow(
      /a cluster name/,
    );
  });

  it('refuse the same EKS cluster in the same region named twice, since EKS refuses its second access entries', () => {
    expect(() => defineStage({ ...stage, clusters: { again: { eksClusterName: 'prod-eu' } } })).toThrow(
      'clusters lists the EKS cluster prod-eu@eu-west-1 more than once (with eksClusterName): name each EKS cluster once',
    );
    expect(() =>
      defineStage({
        ...stage,
        clusters: {
          a: { eksClusterName: 'prod-us', region: 'us-east-1' },
          b: { eksClusterName: 'prod-us', region: 'us-east-1' },
        },
      }),
    ).toThrow(/prod-us@us-east-1 more than once/);
    // The same name in another region is another cluster.
    expect(() =>
      defineStage({ ...stage, clusters: { us: { eksClusterName: 'prod-eu', region: 'us-east-1' } } }),
    ).not.toThrow();
  });
  it('take the projects and namespaces their clusterAccess gives, into CLUSTERS, and name an unknown cluster', () => {
    const scoped = defineStage({
      ...stage,
      clusterAccess: { us: { projects: ['team-us'], previewNamespaces: ['team-us'] } },
      previewPrivateAddresses: true,
    });
    const build = { release: '0.1.0', commit: 'a'.repeat(40) };
    const names = {
      tableName: 't',
      jobQueueUrl: 'q',
      deadLetterQueueUrl: 'd',
      publicOrigin: 'https://svc.acme.io',
    };
    const environments = functionEnvironments(scoped, names, build, 'production');
    for (const fn of ['api', 'worker'] as const) {
      expect(JSON.parse(environments[fn].CLUSTERS ?? '{}')).toEqual({
        'prod-eu': { eks_cluster: 'prod-eu', region: 'eu-west-1' },
        us: {
          eks_cluster: 'prod-us',
          region: 'us-east-1',
          projects: ['team-us'],
          preview_namespaces: ['team-us'],
        },
        eu2: { eks_cluster: 'prod-eu-2', region: 'eu-west-1' },
      });
    }
    expect(environments.worker.PREVIEW_PRIVATE_ADDRESSES).toBe('allow');
    expect(environments.api.SLEEP_SETTINGS).toBeUndefined();
    expect(
      functionEnvironments(stage, names, build, 'production').worker.PREVIEW_PRIVATE_ADDRESSES,
    ).toBeUndefined();
    expect(deployProblems('staging', { ...stage, clusterAccess: { elsewhere: {} } })).toEqual([
      'clusterAccess names "elsewhere", which is not one of the stage\'s clusters',
    ]);
  });
});

describe("a stage's alarms and description", () => {
  const stage = {
    ...production,
    eksClusterName: 'prod-eu',
    previewDomain: 'preview.acme.io',
    publicOrigin: 'https://svc.acme.io',
  };

  it("take an alarm topic in the stage's region only: CloudWatch notifies no other", () => {
    expect(() =>
      defineStage({ ...stage, alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:pager' }),
    ).toThrow(
      "alarmTopicArn must be a topic in the stage's region eu-west-1: CloudWatch alarms notify topics of their own region only",
    );
    expect(
      defineStage({ ...stage, alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:pager' }).alarmTopicArn,
    ).toMatch(/pager$/);
  });

  it('hold a described stage to no example value and someone to alarm; a stage tried by hand may keep them', () => {
    expect(deployProblems('staging', staging)).toEqual([]);
    expect(deployProblems('staging', staging, { described: true })).toEqual([
      'previewDomain "preview.staging.example.com" is a placeholder: set the domain previews answer on',
      'publicOrigin "https://svc.staging.example.com" is a placeholder: set the origin people reach the API at, or leave it out',
      'alarmEmail "preview-alarms@example.com" is a placeholder: set on-call\'s address, or use alarmTopicArn',
    ]);
    const described = defineStage({ ...stage, alarmEmail: 'oncall@acme.io', domain: 'svc.acme.io' });
    expect(deployProblems('staging', described, { described: true })).toEqual([]);
    expect(
      deployProblems('staging', { ...described, domain: 'svc.example.com' }, { described: true }),
    ).toEqual(['domain "svc.example.com" is a placeholder: set the API\'s domain, or leave it out']);
  });

  it('give the API a throttle and the webhook reserved concurrency by default', () => {
    expect(defineStage(stage)).toMatchObject({
      apiThrottle: { rate: 50, burst: 100 },
      webhookConcurrency: 5,
    });
    expect(apiArgs(defineStage({ ...stage, apiThrottle: { rate: 20, burst: 40 } })).transform.stage).toEqual({
      defaultRouteSettings: {
        throttlingRateLimit: 20,
        throttlingBurstLimit: 40,
        detailedMetricsEnabled: true,
      },
    });
  });

  it('give the API and the worker the stage’s sleep as SLEEP_SETTINGS, which the services read back', () => {
    const sleepy = defineStage({ ...stage, sleep: { default_after: '30m', max_after: '2h' } });
    const names = {
      tableName: 't',
      jobQueueUrl: 'q',
      deadLetterQueueUrl: 'd',
      publicOrigin: 'https://svc.acme.io',
    };
    const environments = functionEnvironments(
      sleepy,
      names,
      { release: '0.1.0', commit: 'a'.repeat(40) },
      'staging',
    );
    for (const fn of ['api', 'worker'] as const) {
      const read = Compositions.sleepSettingsOf(
        v.parse(Compositions.SleepSettingsInput, JSON.parse(environments[fn].SLEEP_SETTINGS ?? '{}')),
      );
      expect(read).toMatchObject({ defaultAfterSeconds: 1800, maxAfterSeconds: 7200 });
      expect(read.crawlerUserAgents).toContain('Slackbot');
    }
    expect(environments.webhook.SLEEP_SETTINGS).toBeUndefined();
    expect(() => defineStage({ ...stage, sleep: { default_after: 'soon' } })).toThrow(
      /default_after|duration/,
    );
  });

  it("give the worker the API's public origin (AUTH_SETTINGS.public_origin), which it reads back for the console's links", () => {
    const names = {
      tableName: 't',
      jobQueueUrl: 'q',
      deadLetterQueueUrl: 'd',
      publicOrigin: 'https://svc.acme.io',
    };
    const environments = functionEnvironments(
      defineStage(stage),
      names,
      { release: '0.1.0', commit: 'a'.repeat(40) },
      'staging',
    );
    for (const fn of ['api', 'worker'] as const) {
      expect(parseEnvironment(PublicOriginEnvironment, environments[fn]).publicOrigin, fn).toBe(
        'https://svc.acme.io',
      );
    }
    expect(parseEnvironment(PublicOriginEnvironment, environments.webhook).publicOrigin).toBeNull();
  });
});
