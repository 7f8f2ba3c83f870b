/**
 * The local stack holds each function's AWS calls to the IAM policy infra/settings.ts gives that
 * function on AWS: a call the deployed role would be refused is refused here, with the error each
 * service answers (packages/local-iam), before it reaches DynamoDB Local or fauxqs.
 */
import {
  DynamoDBServiceException,
  GetItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { AuthorizationErrorException, CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  ListQueuesCommand,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Resources } from '@svc/core';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
useTestStack({ worker: false, forge: false, seed: false }, (started) => {
  stack = started.stack;
});

const refusal = (error: unknown) => error;
const denial = (name: 'api' | 'worker' | 'webhook', action: string, resource: string) =>
  `User: ${stack.policies.identity(name).principal} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;
const fauxqsArn = (service: string, name: string) => `arn:aws:${service}:us-east-1:000000000000:${name}`;

describe("each function's AWS calls, held to its deployed policy", () => {
  it('refuses the API a queue of message isolation, which only the worker may create', async () => {
    const name = `preview-iam-${Date.now()}`;
    const refused = await stack.functionClients.api.sqs
      .send(new CreateQueueCommand({ QueueName: name }))
      .catch(refusal);
    expect(refused).toBeInstanceOf(SQSServiceException);
    expect(refused).toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
      message: denial('api', 'sqs:createqueue', fauxqsArn('sqs', name)),
    });
    const listed = await stack.clients.sqs.send(new ListQueuesCommand({ QueueNamePrefix: name }));
    expect(listed.QueueUrls ?? []).toEqual([]);

    const { QueueUrl } = await stack.functionClients.worker.sqs.send(
      new CreateQueueCommand({ QueueName: name }),
    );
    expect(QueueUrl).toContain(name);
    await stack.functionClients.worker.sqs.send(new DeleteQueueCommand({ QueueUrl }));
  });

  it("refuses the worker's SNS client a topic the stage does not grant, with SNS's AuthorizationError", async () => {
    const { TopicArn } = await stack.clients.sns.send(new CreateTopicCommand({ Name: 'iam-not-granted' }));
    const refused = await stack.functionClients.worker.sns
      .send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: fauxqsArn('sqs', 'preview-iam-x') }))
      .catch(refusal);
    expect(refused).toBeInstanceOf(AuthorizationErrorException);
    expect(refused).toMatchObject({
      $metadata: { httpStatusCode: 403 },
      message: denial('worker', 'SNS:Subscribe', fauxqsArn('sns', 'iam-not-granted')),
    });
  });

  it('authorizes a transaction item by item: the webhook may put a delivery, not delete one, and nothing is written', async () => {
    const { tableName, tableArn } = stack.resources;
    const key = { pk: { S: 'iam#transaction' }, sk: { S: 'iam' } };
    const refused = await stack.functionClients.webhook.dynamodb
      .send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: key } },
            { Delete: { TableName: tableName, Key: { pk: { S: 'iam#other' }, sk: { S: 'iam' } } } },
          ],
        }),
      )
      .catch(refusal);
    expect(refused).toBeInstanceOf(DynamoDBServiceException);
    expect(refused).toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 400 },
      message: denial('webhook', 'dynamodb:DeleteItem', tableArn),
    });
    const { Item } = await stack.clients.dynamodb.send(
      new GetItemCommand({ TableName: tableName, Key: key }),
    );
    expect(Item).toBeUndefined();

    await stack.functionClients.webhook.dynamodb.send(
      new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: tableName, Item: key } }] }),
    );
    expect(
      (await stack.clients.dynamodb.send(new GetItemCommand({ TableName: tableName, Key: key }))).Item,
    ).toEqual(key);
  });

  it("authorizes a query on an index on the index's ARN, which the webhook is not granted", async () => {
    const [index] = Resources.table.globalIndexes;
    if (!index) throw new Error('the table declares no global index');
    const refused = await stack.functionClients.webhook.documents
      .send(
        new QueryCommand({
          TableName: stack.resources.tableName,
          IndexName: index.name,
          KeyConditionExpression: '#k = :v',
          ExpressionAttributeNames: { '#k': index.partitionKey },
          ExpressionAttributeValues: { ':v': 'x' },
        }),
      )
      .catch(refusal);
    expect(refused).toMatchObject({
      name: 'AccessDeniedException',
      message: denial('webhook', 'dynamodb:Query', `${stack.resources.tableArn}/index/${index.name}`),
    });
  });
});
