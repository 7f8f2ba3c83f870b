/** `svc admin dlq replay` through the real executable, against the local stack's dead-letter queue. */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from './helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});

const replay = (args: string[]) => svc(['admin', 'dlq', 'replay', ...args], { apiUrl: stack.apiUrl });

describe('svc admin dlq replay', () => {
  it('reports what a dry run would do, then replays with the reason given', async () => {
    const gone = { kind: 'step', operation_id: 'op-gone', composition_id: 'c-gone', step: 'apply' };
    await stack.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.resources.deadLetterQueueUrl,
        MessageBody: JSON.stringify(gone),
      }),
    );
    const dry = await replay(['--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toEqual({
      dry_run: true,
      reason: 'replayed from the dead-letter queue',
      jobs: [
        expect.objectContaining({
          composition_id: 'c-gone',
          action: 'discard',
          detail: 'its composition or operation no longer exists',
        }),
      ],
    });
    const done = await replay(['--limit', '5', '--reason', 'after INC-7']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json()).toMatchObject({
      dry_run: false,
      reason: 'after INC-7',
      jobs: [{ action: 'discard' }],
    });
    expect((await replay(['--dry-run'])).json().jobs).toEqual([]);
  });

  it('refuses a bad limit before sending anything', async () => {
    const result = await replay(['--limit', '0']);
    expect(result.code).toBe(2);
    expect(result.problem()).toMatchObject({ code: 'invalid_argument' });
  });
});
