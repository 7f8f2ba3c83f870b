import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConditionalCheckFailedException,
  GetItemCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { ListTopicsCommand, NotFoundException } from '@aws-sdk/client-sns';
import { QueueDoesNotExist, SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Dependency, DependencyUnavailableError } from '@svc/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AwsClients, createAwsClients } from './clients.ts';
import { createSnsClient } from './messaging.ts';

/**
 * Outages cannot be caused on DynamoDB Local or fauxqs, so a local HTTP server answers as AWS does
 * when it fails; the clients are the ones production builds, retries included.
 */
interface Answer {
  status: number;
  contentType?: string;
  body?: string;
}

let answer: Answer;
/** Answered first, one per request, before `answer`. */
let answers: Answer[] = [];
let requests = 0;
let server: Server;
type Clients = AwsClients & { sns: ReturnType<typeof createSnsClient> };
let clients: Clients;

const dynamodbError = (status: number, type: string, extra: Record<string, unknown> = {}): Answer => ({
  status,
  contentType: 'application/x-amz-json-1.0',
  body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type, ...extra }),
});

function clientsFor(endpoint: string): Clients {
  const aws = { region: 'eu-west-1', dynamodbEndpoint: endpoint, sqsEndpoint: endpoint };
  return { ...createAwsClients(aws), sns: createSnsClient(aws) };
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error,
  );
}

const getItem = () =>
  clients.dynamodb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } }));

beforeAll(async () => {
  server = createServer((request, response) => {
    requests++;
    request.resume().on('end', () => {
      const given = answers.shift() ?? answer;
      response.writeHead(given.status, {
        'x-amzn-requestid': 'test',
        ...(given.contentType ? { 'content-type': given.contentType } : {}),
      });
      response.end(given.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  clients = clientsFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  requests = 0;
  answers = [];
});

describe('AWS clients', () => {
  it.each([
    ['a 500', dynamodbError(500, 'InternalServerError')],
    ['a 503 without a body', { status: 503 }],
    ['throttling', dynamodbError(400, 'ProvisionedThroughputExceededException')],
    ['request-rate throttling', dynamodbError(400, 'ThrottlingException')],
  ])(
    'raise DependencyUnavailableError for DynamoDB answering %s, once the SDK retried',
    async (_what, given) => {
      answer = given;
      const error = await failure(getItem());
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect(error).toMatchObject({ dependency: Dependency.DynamoDB });
      expect((error as Error).cause).toHaveProperty('$metadata');
      expect(requests).toBe(3);
    },
  );

  it('classify through the document client too, which shares the middleware', async () => {
    answer = dynamodbError(500, 'InternalServerError');
    const error = await failure(
      clients.documents.send(new PutCommand({ TableName: 't', Item: { pk: 'a' } })),
    );
    expect(error).toMatchObject({ name: 'DependencyUnavailableError', dependency: Dependency.DynamoDB });
  });

  it('leave a failed condition as the SDK raised it, with the item it found', async () => {
    answer = dynamodbError(400, 'ConditionalCheckFailedException', { Item: { pk: { S: 'a' } } });
    const error = await failure(
      clients.documents.send(
        new PutCommand({
          TableName: 't',
          Item: { pk: 'a' },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(error).toBeInstanceOf(ConditionalCheckFailedException);
    expect((error as ConditionalCheckFailedException).Item).toEqual({ pk: { S: 'a' } });
    expect(requests).toBe(1);
  });

  it.each([
    [
      'a cancelled transaction',
      dynamodbError(400, 'TransactionCanceledException', {
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
      }),
      TransactionCanceledException,
    ],
    ['a refused request', dynamodbError(400, 'ValidationException'), Error],
  ])('leave %s to the caller', async (_what, given, type) => {
    answer = given;
    const error = await failure(getItem());
    expect(error).toBeInstanceOf(type);
    expect(error).not.toBeInstanceOf(DependencyUnavailableError);
  });

  const conflict = dynamodbError(400, 'TransactionCanceledException', {
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
  });
  const transaction = () =>
    clients.documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: 't', Item: { pk: 'a' } } },
          {
            Update: {
              TableName: 't',
              Key: { pk: 'q' },
              UpdateExpression: 'ADD live :one',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    );

  it('run a transaction cancelled for a conflict again, and answer once it goes through', async () => {
    answers = [conflict, conflict];
    answer = { status: 200, contentType: 'application/x-amz-json-1.0', body: '{}' };
    await transaction();
    expect(requests).toBe(3);
  });

  it('raise DependencyUnavailableError for a transaction that keeps conflicting, after four attempts', async () => {
    answer = conflict;
    const error = await failure(transaction());
    expect(error).toMatchObject({ name: 'DependencyUnavailableError', dependency: Dependency.DynamoDB });
    expect((error as Error).cause).toBeInstanceOf(TransactionCanceledException);
    expect(requests).toBe(4);
  });

  it('run a write refused for a transaction in progress on its item again', async () => {
    answers = [dynamodbError(400, 'TransactionConflictException')];
    answer = { status: 200, contentType: 'application/x-amz-json-1.0', body: '{}' };
    await clients.documents.send(new PutCommand({ TableName: 't', Item: { pk: 'a' } }));
    expect(requests).toBe(2);
  });

  it('raise DependencyUnavailableError naming SQS or SNS when they fail', async () => {
    answer = { status: 503 };
    const sqs = await failure(clients.sqs.send(new SendMessageCommand({ QueueUrl: 'q', MessageBody: '{}' })));
    const sns = await failure(clients.sns.send(new ListTopicsCommand({})));
    expect(sqs).toMatchObject({ name: 'DependencyUnavailableError', dependency: Dependency.Sqs });
    expect(sns).toMatchObject({ name: 'DependencyUnavailableError', dependency: Dependency.Sns });
  });

  it('leave SQS and SNS answers about a missing queue or topic to the caller', async () => {
    answer = {
      status: 400,
      contentType: 'application/x-amz-json-1.0',
      body: JSON.stringify({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'no such queue' }),
    };
    const sqs = await failure(clients.sqs.send(new SendMessageCommand({ QueueUrl: 'q', MessageBody: '{}' })));
    expect(sqs).toBeInstanceOf(QueueDoesNotExist);
    answer = {
      status: 404,
      contentType: 'text/xml',
      body: '<ErrorResponse><Error><Type>Sender</Type><Code>NotFound</Code><Message>Topic does not exist</Message></Error><RequestId>test</RequestId></ErrorResponse>',
    };
    const sns = await failure(clients.sns.send(new ListTopicsCommand({})));
    expect(sns).toBeInstanceOf(NotFoundException);
  });

  it('raise DependencyUnavailableError when nothing listens at the endpoint', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = clientsFor(`http://127.0.0.1:${port}`);
    const error = await failure(
      unreachable.dynamodb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } })),
    );
    expect(error).toMatchObject({ name: 'DependencyUnavailableError', dependency: Dependency.DynamoDB });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });
});
