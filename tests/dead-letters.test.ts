/**
 * The dead-letter replay end to end on the local stack: a create whose step died in the dead-letter
 * queue runs again from that step once the cause is fixed, with the operator's reason on the
 * composition; a dry run changes nothing; jobs with nothing to replay are discarded, unreadable
 * ones kept; only the installation's Admin may replay.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let admin: HttpClient;
let developer: HttpClient;
useTestStack({ authMode: 'token', retryBaseSeconds: 0 }, async (started) => {
  stack = started.stack;
  admin = httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token('ops', 'admin')}` });
  developer = httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token('dev', 'member')}` });
});
afterEach(async () => {
  await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
});

const replay = (body: Record<string, unknown>, http = admin) =>
  http.post('/v1/admin/dead-letters/replay', body);

/** Dry runs until the dead-letter queue shows `count` jobs (a job moves there after its last receive). */
async function deadJobs(count: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await replay({ dry_run: true, limit: 100 });
    expect(status, JSON.stringify(body)).toBe(200);
    if (body.jobs.length >= count || Date.now() > deadline) return body.jobs;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function sendDead(body: string): Promise<void> {
  await stack.clients.sqs.send(
    new SendMessageCommand({ QueueUrl: stack.resources.deadLetterQueueUrl, MessageBody: body }),
  );
}

describe('the dead-letter replay', () => {
  it('runs a create whose step died again from that step, the reason recorded on the composition', async () => {
    await fetch(`${stack.clusterUrl}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'fail', status: 500, percent: 100, match: { resource: 'configmaps' } }),
    });
    const created = await createComposition(admin, { 'service-b': { image: image('service-b', '5.0.0') } });
    const failed = await waitForPhase(admin, created.id, ['failed', 'ready'], 60_000);
    expect(failed.observed.blockers[0]).toMatchObject({ code: 'step_failed' });
    const dead = await deadJobs(1);
    const planned = {
      kind: 'step',
      composition_id: created.id,
      operation_id: created.latest_operation.id,
      step: 'apply',
      action: 'resume',
      detail: `create ${created.latest_operation.id} runs again from apply`,
    };
    expect(dead).toEqual([expect.objectContaining(planned)]);
    // The dry run changed nothing.
    expect((await admin.get(`/v1/compositions/${created.id}`)).body.phase).toBe('failed');

    await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
    const { status, body } = await replay({ reason: 'configmaps fixed (INC-42)' });
    expect(status).toBe(200);
    expect(body).toEqual({
      dry_run: false,
      reason: 'configmaps fixed (INC-42)',
      jobs: [expect.objectContaining(planned)],
    });
    const ready = await waitForPhase(admin, created.id, ['ready', 'failed'], 30_000);
    expect(ready).toMatchObject({ phase: 'ready', observed: { blockers: [] } });
    const events = (await admin.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'replayed',
        actor: { kind: 'machine', subject: 'token:ops' },
        operation_id: created.latest_operation.id,
        message: 'create from apply replayed from the dead-letter queue: configmaps fixed (INC-42)',
        data: { reason: 'configmaps fixed (INC-42)', message_id: dead[0].message_id, step: 'apply' },
      }),
    );
    const audit = (await admin.get('/v1/audit-events?limit=100')).body.items;
    expect(audit.filter((e: { action: string }) => e.action === 'dead_letters.replayed')).toEqual([
      expect.objectContaining({
        actor: { subject: 'token:ops', kind: 'machine', credential: 'machine_token' },
        project: null,
        data: {
          reason: 'configmaps fixed (INC-42)',
          jobs: [
            {
              message_id: dead[0].message_id,
              kind: 'step',
              composition_id: created.id,
              action: 'resume',
            },
          ],
        },
      }),
    ]);
    expect(await deadJobs(0, 0)).toEqual([]);
  }, 120_000);

  it('discards a job with nothing left to replay and keeps one it cannot read, removing only the first', async () => {
    const created = await createComposition(admin, {});
    await waitForPhase(admin, created.id, ['ready']);
    const finished = {
      kind: 'step',
      operation_id: created.latest_operation.id,
      composition_id: created.id,
      step: 'apply',
    };
    await sendDead(JSON.stringify(finished));
    await sendDead('not json');
    const jobs = await deadJobs(2);
    const byAction = Object.fromEntries(jobs.map((j: { action: string }) => [j.action, j]));
    expect(byAction.discard).toMatchObject({
      composition_id: created.id,
      detail: `nothing to replay: operation ${created.latest_operation.id} is succeeded`,
    });
    expect(byAction.keep).toMatchObject({ kind: null, detail: expect.stringMatching(/^unreadable/) });

    const { body } = await replay({ reason: 'cleanup' });
    expect(body.jobs.map((j: { action: string }) => j.action).sort()).toEqual(['discard', 'keep']);
    expect((await deadJobs(1, 0)).map((j: { action: string }) => j.action)).toEqual(['keep']);
    const events = (await admin.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    expect(events.filter((e: { type: string }) => e.type === 'replayed')).toEqual([]);
  });

  it('waits for dead jobs the queue has not shown yet instead of stopping at the first empty answer', async () => {
    await sendDead('not json either');
    // Another reader holds every dead job for a second: a short poll now answers nothing.
    const held = await stack.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: stack.resources.deadLetterQueueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 1,
        WaitTimeSeconds: 1,
      }),
    );
    const heldIds = (held.Messages ?? []).map((m) => m.MessageId);
    expect(held.Messages?.map((m) => m.Body)).toContain('not json either');
    const { body } = await replay({ dry_run: true });
    expect(body.jobs.map((j: { message_id: string }) => j.message_id).sort()).toEqual(heldIds.sort());
    await replay({ reason: 'cleanup' });
    const audit = (await admin.get('/v1/audit-events?limit=100')).body.items;
    // Kept jobs change nothing, but the replay is recorded with what it took; a dry run is not.
    expect(audit[0]).toMatchObject({ action: 'dead_letters.replayed', data: { reason: 'cleanup' } });
  });

  it('is for the installation Admin only, and names a bad field', async () => {
    const refused = await replay({ dry_run: true }, developer);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    const bad = await replay({ limit: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: '/limit' })]);
    const unknown = await replay({ dry: true });
    expect(unknown.status).toBe(422);
  });
});
