import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Receives until the queue is empty and answers the bodies. `firstWaitSeconds` long-polls the first
 * receive, for messages that arrive asynchronously (SNS fan-out).
 */
export async function drainQueue(sqs: SQSClient, queueUrl: string, firstWaitSeconds = 0): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: bodies.length ? 0 : firstWaitSeconds,
      }),
    );
    if (Messages.length === 0) return bodies;
    bodies.push(...Messages.map((m) => m.Body ?? ''));
  }
}
