import { RuntimeEnvironment } from '@svc/aws';
import { Auth, Resources } from '@svc/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import service from '../package.json' with { type: 'json' };
import production from '../stacks/production.ts';
import { StageSettings } from '../stacks/schema.ts';
import staging from '../stacks/staging.ts';
import {
  deployedBuild,
  functionEnvironment,
  lambdaRuntime,
  queueArgs,
  rateExpression,
  scheduleArgs,
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
    expect(workerSubscription.batch.partialResponses).toBe(true);
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
  const cursorKey = 'k'.repeat(48);

  it('passes the stage auth mode, names and build to the functions', () => {
    const env = functionEnvironment(staging, { tableName: 't', jobQueueUrl: 'q' }, build, cursorKey);
    expect(env).toMatchObject({
      AUTH_MODE: 'token',
      TABLE_NAME: 't',
      JOB_QUEUE_URL: 'q',
      CURSOR_KEY: cursorKey,
    });
    expect(env.PREVIEW_URL_TEMPLATE).toBe('https://{id}.preview.staging.example.com/');
    expect(env).toMatchObject({ SVC_RELEASE: '0.1.0', SVC_COMMIT: 'a'.repeat(40) });
  });

  it('sets every variable the runtime requires and none it never reads', () => {
    const env = functionEnvironment(production, { tableName: 't', jobQueueUrl: 'q' }, build, cursorKey);
    const required = Object.entries(RuntimeEnvironment.entries)
      .filter(([name, schema]) => schema.type !== 'optional' && name !== 'AWS_REGION')
      .map(([name]) => name);
    for (const name of required) expect(env).toHaveProperty(name);
    expect(Object.keys(env).sort()).toEqual(
      [
        ...required,
        'AUTH_MODE',
        'AUTH_SETTINGS',
        'EKS_CLUSTER_NAME',
        'SVC_RELEASE',
        'SVC_COMMIT',
        'NODE_OPTIONS',
      ].sort(),
    );
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
      const env = functionEnvironment(stage, { tableName: 't', jobQueueUrl: 'q' }, build, cursorKey);
      expect(Auth.parseAuthSettings(env, { allowDev: false }).mode).toBe(stage.authMode);
    }
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
