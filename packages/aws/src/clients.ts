import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Dependency, type Health } from '@svc/core';
import { dependencyFailures, transactionConflicts } from './failures.ts';

export interface AwsSettings {
  region: string;
  /** Set for DynamoDB Local; absent on AWS. */
  dynamodbEndpoint?: string;
  /** Set for fauxqs (which serves SNS on the same endpoint); absent on AWS. */
  sqsEndpoint?: string;
  /** Deadlines of every request (default {@link awsTimeouts}); the local stack's emulators get longer ones. */
  timeouts?: AwsTimeouts;
}

export interface AwsTimeouts {
  connectionMs: number;
  requestMs: number;
  /** Attempts of one call, the first included (default 3). */
  attempts?: number;
}

/**
 * Every AWS call has a deadline: a connection in 1 s, an answer in 2.5 s, three attempts. One call
 * to a frozen service gives up in under 8 s, so the webhook's whole answer stays under GitHub's
 * 10 s and an API request answers 503 instead of hanging to API Gateway's 29 s.
 */
export const awsTimeouts: AwsTimeouts = { connectionMs: 1000, requestMs: 2500, attempts: 3 };

/**
 * The API's: a person (or a CLI) waits on every call, so a frozen table answers 503 within 3 s —
 * two attempts of 1 s, a connection in 0.5 s. DynamoDB and SQS answer in milliseconds when well.
 */
export const apiTimeouts: AwsTimeouts = { connectionMs: 500, requestMs: 1000, attempts: 2 };

/** The client settings every AWS client shares: region, attempts, deadlines, the emulator's endpoint. */
export function clientSettings(settings: AwsSettings, endpoint: string | undefined) {
  const timeouts = settings.timeouts ?? awsTimeouts;
  return {
    region: settings.region,
    maxAttempts: timeouts.attempts ?? 3,
    requestHandler: {
      connectionTimeout: timeouts.connectionMs,
      requestTimeout: timeouts.requestMs,
      // Without it, @smithy/node-http-handler 4.x only logs a request past its deadline.
      throwOnRequestTimeout: true,
    },
    ...(endpoint ? { endpoint, credentials: emulatorCredentials } : {}),
  };
}

/** Emulators accept any credentials; fixed ones keep the SDK from searching the machine for real ones. */
const emulatorCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface AwsClients {
  dynamodb: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  sqs: SQSClient;
}

/**
 * The one place SDK clients are built; adapters receive them by parameter. Each client raises
 * DependencyUnavailableError when its service cannot serve, and DynamoDB's runs a transaction
 * again when it was cancelled for a conflict (the document client shares the DynamoDB client's
 * middleware).
 */
export function createAwsClients(settings: AwsSettings): AwsClients {
  const dynamodb = new DynamoDBClient(clientSettings(settings, settings.dynamodbEndpoint));
  const documents = DynamoDBDocumentClient.from(dynamodb, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  const sqs = new SQSClient(clientSettings(settings, settings.sqsEndpoint));
  dynamodb.middlewareStack.use(dependencyFailures(Dependency.DynamoDB));
  dynamodb.middlewareStack.use(transactionConflicts());
  sqs.middlewareStack.use(dependencyFailures(Dependency.Sqs));
  return { dynamodb, documents, sqs };
}

export function dynamodbCheck(client: DynamoDBClient, tableName: string): Health.DependencyCheck {
  return {
    name: 'dynamodb',
    async check(signal) {
      await client.send(new DescribeTableCommand({ TableName: tableName }), { abortSignal: signal });
    },
  };
}

export function sqsCheck(client: SQSClient, queueUrl: string): Health.DependencyCheck {
  return {
    name: 'sqs',
    async check(signal) {
      await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }), {
        abortSignal: signal,
      });
    },
  };
}
