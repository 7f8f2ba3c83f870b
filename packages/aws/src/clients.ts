import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Dependency, type DependencyCheck } from '@svc/core';
import { dependencyFailures } from './failures.ts';

export interface AwsSettings {
  region: string;
  /** Set for DynamoDB Local; absent on AWS. */
  dynamodbEndpoint?: string;
  /** Set for fauxqs (which serves SNS on the same endpoint); absent on AWS. */
  sqsEndpoint?: string;
}

/** Emulators accept any credentials; fixed ones keep the SDK from searching the machine for real ones. */
export const emulatorCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface AwsClients {
  dynamodb: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  sqs: SQSClient;
}

/**
 * The one place SDK clients are built; adapters receive them by parameter. Each client raises
 * DependencyUnavailableError when its service cannot serve (the document client shares the
 * DynamoDB client's middleware).
 */
export function createAwsClients(settings: AwsSettings): AwsClients {
  const dynamodb = new DynamoDBClient({
    region: settings.region,
    maxAttempts: 3,
    ...(settings.dynamodbEndpoint
      ? { endpoint: settings.dynamodbEndpoint, credentials: emulatorCredentials }
      : {}),
  });
  const documents = DynamoDBDocumentClient.from(dynamodb, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  const sqs = new SQSClient({
    region: settings.region,
    maxAttempts: 3,
    ...(settings.sqsEndpoint ? { endpoint: settings.sqsEndpoint, credentials: emulatorCredentials } : {}),
  });
  dynamodb.middlewareStack.use(dependencyFailures(Dependency.DynamoDB));
  sqs.middlewareStack.use(dependencyFailures(Dependency.Sqs));
  return { dynamodb, documents, sqs };
}

export function dynamodbCheck(client: DynamoDBClient, tableName: string): DependencyCheck {
  return {
    name: 'dynamodb',
    async check(signal) {
      await client.send(new DescribeTableCommand({ TableName: tableName }), { abortSignal: signal });
    },
  };
}

export function sqsCheck(client: SQSClient, queueUrl: string): DependencyCheck {
  return {
    name: 'sqs',
    async check(signal) {
      await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }), {
        abortSignal: signal,
      });
    },
  };
}
