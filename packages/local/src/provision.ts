import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Resources } from '@svc/core';

export interface ProvisionedResources {
  tableName: string;
  jobQueueUrl: string;
  deadLetterQueueUrl: string;
  /** Their ARNs as the emulators answer them: what the functions' IAM policies name. */
  tableArn: string;
  jobQueueArn: string;
  deadLetterQueueArn: string;
}

/**
 * Creates the declared table and queues against the emulators, idempotently (existing ones are
 * kept, so a restart keeps its data). `prefix` isolates test files sharing one emulator.
 */
export async function provision(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
  prefix = '',
): Promise<ProvisionedResources> {
  const tableName = `${prefix}${Resources.table.name}`;
  await createTable(clients.dynamodb, tableName);
  const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  if (!Table?.TableArn) throw new Error(`table ${tableName} has no ARN`);
  const dlq = Resources.deadLetterQueue;
  const deadLetterQueueUrl = await createQueue(clients.sqs, `${prefix}${dlq.name}`, {
    MessageRetentionPeriod: String(dlq.messageRetentionSeconds),
  });
  const deadLetterQueueArn = await queueArn(clients.sqs, deadLetterQueueUrl);
  const job = Resources.jobQueue;
  const jobQueueUrl = await createQueue(clients.sqs, `${prefix}${job.name}`, {
    VisibilityTimeout: String(job.visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(job.messageRetentionSeconds),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: deadLetterQueueArn,
      maxReceiveCount: job.maxReceiveCount,
    }),
  });
  return {
    tableName,
    jobQueueUrl,
    deadLetterQueueUrl,
    tableArn: Table.TableArn,
    jobQueueArn: await queueArn(clients.sqs, jobQueueUrl),
    deadLetterQueueArn,
  };
}

async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const { table } = Resources;
  const keyAttributes = [
    table.partitionKey,
    table.sortKey,
    ...table.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: table.globalIndexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    return;
  }
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
    }),
  );
}

async function createQueue(
  client: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<string> {
  const result = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!result.QueueUrl) throw new Error(`CreateQueue ${name} returned no URL`);
  return result.QueueUrl;
}

async function queueArn(client: SQSClient, url: string): Promise<string> {
  const result = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = result.Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${url} has no ARN`);
  return arn;
}
