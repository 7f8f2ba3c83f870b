import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type Log, silentLog } from '@svc/core';

type MessageHandler = (body: string, receiveCount: number) => Promise<void>;

export interface Poller {
  stop(): Promise<void>;
}

export interface PollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  handle: MessageHandler;
  /** Messages handled at once. */
  concurrency?: number;
  /** Retry delay after a failed message, doubled per receive (capped): fast retries without waiting out the visibility timeout. */
  retryBaseSeconds?: number;
  /**
   * How long a received message stays hidden, extended every third of it while its handler runs:
   * a message the process held when it died is back this soon, not after the queue's 6 minutes.
   */
  visibilitySeconds?: number;
  log?: Log;
}

/**
 * The local stand-in for the SQS → Lambda event source: long-polls, runs the handler, deletes on
 * success, and on failure makes the message visible again after a short backoff so the queue's
 * redrive policy (maxReceiveCount → DLQ) still applies. Received messages are hidden only for a
 * short while, renewed as they run (the usual SQS consumer heartbeat).
 */
export function startPoller(options: PollerOptions): Poller {
  const concurrency = options.concurrency ?? 16;
  const log = options.log ?? silentLog;
  const controller = new AbortController();
  const inFlight = new Set<Promise<void>>();

  async function loop(): Promise<void> {
    while (!controller.signal.aborted) {
      const free = concurrency - inFlight.size;
      if (free <= 0) {
        await Promise.race(inFlight);
        continue;
      }
      let messages: Message[] = [];
      try {
        const result = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: Math.min(free, 10),
            WaitTimeSeconds: 10,
            VisibilityTimeout: options.visibilitySeconds ?? defaultVisibilitySeconds,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          }),
          { abortSignal: controller.signal },
        );
        messages = result.Messages ?? [];
      } catch (error) {
        if (controller.signal.aborted) break;
        log({ level: 'warn', msg: 'receive failed', error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      for (const message of messages) {
        const task = handleMessage(options, message, log).finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
    }
  }

  const running = loop();
  return {
    async stop() {
      controller.abort();
      await running.catch(() => {});
      await Promise.allSettled(inFlight);
    },
  };
}

const defaultVisibilitySeconds = 10;

/** Keeps a message hidden while its handler runs; stopped before the message is deleted or released. */
function hideWhileRunning(options: PollerOptions, message: Message): () => void {
  const seconds = options.visibilitySeconds ?? defaultVisibilitySeconds;
  const timer = setInterval(
    () => {
      void options.sqs
        .send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: options.queueUrl,
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: seconds,
          }),
        )
        .catch(() => {});
    },
    (seconds * 1000) / 3,
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** Runs one message: deleted when handled; on failure visible again after a backoff (its redrive still counts). */
async function handleMessage(
  options: PollerOptions,
  message: Message,
  log: NonNullable<PollerOptions['log']>,
): Promise<void> {
  const receiveCount = Number(message.Attributes?.ApproximateReceiveCount ?? '1');
  const stopHiding = hideWhileRunning(options, message);
  try {
    await options.handle(message.Body ?? '', receiveCount);
    stopHiding();
    await options.sqs.send(
      new DeleteMessageCommand({ QueueUrl: options.queueUrl, ReceiptHandle: message.ReceiptHandle }),
    );
  } catch (error) {
    stopHiding();
    log({ level: 'warn', msg: 'job failed', receive_count: receiveCount, error: String(error) });
    const delay = Math.min(Math.ceil((options.retryBaseSeconds ?? 1) * 2 ** (receiveCount - 1)), 60);
    await options.sqs
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: options.queueUrl,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: delay,
        }),
      )
      .catch(() => {});
  }
}
