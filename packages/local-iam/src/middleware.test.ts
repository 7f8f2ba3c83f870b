import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, DynamoDBServiceException, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { AuthorizationErrorException, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enforcePolicy } from './middleware.ts';
import { policyAuthorizer } from './policy.ts';

/** A stand-in service that answers every request with an empty success, counting them. */
let server: Server;
let requests = 0;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    requests++;
    request.resume().on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const account = '000000000000';
const principal = `arn:aws:sts::${account}:assumed-role/svc-local-webhook/webhook`;
const table = `arn:aws:dynamodb:us-east-1:${account}:table/svc`;
const authorizer = policyAuthorizer({
  principal,
  account,
  statements: [{ actions: ['dynamodb:PutItem'], resources: [table] }],
});
const scope = { partition: 'aws', region: 'us-east-1', account };
const scopes = { dynamodb: scope, sqs: scope, sns: scope, eks: scope };
const settings = () => ({
  region: 'us-east-1',
  endpoint,
  credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
});

describe('enforcePolicy', () => {
  it('lets an allowed call through, and refuses a denied one before it leaves, with DynamoDB’s AccessDeniedException', async () => {
    const client = new DynamoDBClient(settings());
    enforcePolicy(client, () => authorizer, scopes);
    const before = requests;
    await client.send(new PutItemCommand({ TableName: 'svc', Item: { pk: { S: 'a' } } }));
    expect(requests).toBe(before + 1);

    const denied = await client
      .send(new PutItemCommand({ TableName: 'other', Item: { pk: { S: 'a' } } }))
      .catch((error: unknown) => error);
    expect(requests).toBe(before + 1);
    expect(denied).toBeInstanceOf(DynamoDBServiceException);
    expect(denied).toMatchObject({
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: `User: ${principal} is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:${account}:table/other because no identity-based policy allows the dynamodb:PutItem action`,
    });
  });

  it('answers as SQS and SNS do: AccessDeniedException with the action in lower case, AuthorizationError with SNS:', async () => {
    const sqs = new SQSClient(settings());
    const sns = new SNSClient(settings());
    enforcePolicy(sqs, () => authorizer, scopes);
    enforcePolicy(sns, () => authorizer, scopes);
    const queue = await sqs
      .send(new SendMessageCommand({ QueueUrl: `${endpoint}/${account}/jobs`, MessageBody: 'x' }))
      .catch((error: unknown) => error);
    expect(queue).toBeInstanceOf(SQSServiceException);
    expect(queue).toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
      message: expect.stringContaining(
        `is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:${account}:jobs because`,
      ),
    });
    const topic = `arn:aws:sns:us-east-1:${account}:orders`;
    const subscribe = await sns
      .send(new SubscribeCommand({ TopicArn: topic, Protocol: 'sqs', Endpoint: 'arn:aws:sqs:us-east-1:0:q' }))
      .catch((error: unknown) => error);
    expect(subscribe).toBeInstanceOf(AuthorizationErrorException);
    expect(subscribe).toMatchObject({
      $metadata: { httpStatusCode: 403 },
      message: `User: ${principal} is not authorized to perform: SNS:Subscribe on resource: ${topic} because no identity-based policy allows the SNS:Subscribe action`,
    });
  });

  it('holds the client to the policy of the moment', async () => {
    const client = new DynamoDBClient(settings());
    let current = authorizer;
    enforcePolicy(client, () => current, scopes);
    const put = () => client.send(new PutItemCommand({ TableName: 'svc', Item: { pk: { S: 'a' } } }));
    await put();
    current = policyAuthorizer({ principal, account, statements: [] });
    await expect(put()).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});
