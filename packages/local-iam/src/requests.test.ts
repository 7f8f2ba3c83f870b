import { describe, expect, it } from 'vitest';
import { authorizationRequests, type Call, Service, UnmappedCallError } from './requests.ts';

const scope = { partition: 'aws', region: 'eu-west-1', account: '123456789012' };
const table = 'arn:aws:dynamodb:eu-west-1:123456789012:table/svc';
const requests = (call: Call) => authorizationRequests(call, scope);

describe('authorizationRequests', () => {
  it('authorizes a query on an index on the index, and one on the table on the table', async () => {
    expect(
      await requests({
        service: Service.DynamoDB,
        operation: 'Query',
        input: { TableName: 'svc', IndexName: 'gsi1' },
      }),
    ).toEqual([{ action: 'dynamodb:Query', resource: `${table}/index/gsi1`, resourceType: 'index' }]);
    expect(
      await requests({ service: Service.DynamoDB, operation: 'Query', input: { TableName: 'svc' } }),
    ).toEqual([{ action: 'dynamodb:Query', resource: table, resourceType: 'table' }]);
  });

  it('authorizes TransactWriteItems item by item, as the single-item action each stands for', async () => {
    const input = {
      TransactItems: [
        { Put: { TableName: 'svc' } },
        { Update: { TableName: 'other' } },
        { Delete: { TableName: 'svc' } },
        { ConditionCheck: { TableName: 'svc' } },
      ],
    };
    expect(await requests({ service: Service.DynamoDB, operation: 'TransactWriteItems', input })).toEqual([
      { action: 'dynamodb:PutItem', resource: table, resourceType: 'table' },
      {
        action: 'dynamodb:UpdateItem',
        resource: 'arn:aws:dynamodb:eu-west-1:123456789012:table/other',
        resourceType: 'table',
      },
      { action: 'dynamodb:DeleteItem', resource: table, resourceType: 'table' },
      { action: 'dynamodb:ConditionCheckItem', resource: table, resourceType: 'table' },
    ]);
  });

  it('authorizes BatchWriteItem as its own action on each table it writes', async () => {
    const input = { RequestItems: { svc: [], other: [] } };
    expect(
      (await requests({ service: Service.DynamoDB, operation: 'BatchWriteItem', input })).map(
        (r) => r.resource,
      ),
    ).toEqual([table, 'arn:aws:dynamodb:eu-west-1:123456789012:table/other']);
  });

  it("takes a queue's account and name from its URL, AWS's and fauxqs's alike, and its region where the host names one", async () => {
    const send = (QueueUrl: string) =>
      requests({ service: Service.Sqs, operation: 'SendMessageBatch', input: { QueueUrl } });
    expect(await send('https://sqs.us-east-2.amazonaws.com/210987654321/jobs')).toEqual([
      {
        action: 'sqs:SendMessage',
        resource: 'arn:aws:sqs:us-east-2:210987654321:jobs',
        resourceType: 'queue',
      },
    ]);
    expect((await send('http://sqs.us-east-1.127.0.0.1:4566/000000000000/jobs'))[0]?.resource).toBe(
      'arn:aws:sqs:us-east-1:000000000000:jobs',
    );
    expect((await send('http://127.0.0.1:4566/000000000000/jobs'))[0]?.resource).toBe(
      'arn:aws:sqs:eu-west-1:000000000000:jobs',
    );
  });

  it('names a queue to create by its name, in the scope', async () => {
    expect(
      await requests({
        service: Service.Sqs,
        operation: 'CreateQueue',
        input: { QueueName: 'preview_x_c-1' },
      }),
    ).toEqual([
      {
        action: 'sqs:CreateQueue',
        resource: 'arn:aws:sqs:eu-west-1:123456789012:preview_x_c-1',
        resourceType: 'queue',
      },
    ]);
  });

  it('authorizes listing on *, the actions with no resource type', async () => {
    expect(
      await requests({ service: Service.Sqs, operation: 'ListQueues', input: { QueueNamePrefix: 'p' } }),
    ).toEqual([{ action: 'sqs:ListQueues', resource: '*', resourceType: null }]);
    expect(await requests({ service: Service.Sns, operation: 'ListTopics', input: {} })).toEqual([
      { action: 'sns:ListTopics', resource: '*', resourceType: null },
    ]);
  });

  it("authorizes a subscription's calls on its topic's ARN, not its own", async () => {
    const topic = 'arn:aws:sns:us-east-1:000000000000:orders';
    for (const operation of ['Unsubscribe', 'GetSubscriptionAttributes']) {
      expect(
        await requests({
          service: Service.Sns,
          operation,
          input: { SubscriptionArn: `${topic}:5a2b9c1e-0f3d` },
        }),
      ).toEqual([{ action: `sns:${operation}`, resource: topic, resourceType: 'topic' }]);
    }
  });

  it('refuses an operation the reference has no action for, and an input naming no resource', async () => {
    await expect(
      requests({ service: Service.DynamoDB, operation: 'TransactWriteItems2', input: {} }),
    ).rejects.toBeInstanceOf(UnmappedCallError);
    await expect(requests({ service: Service.Sqs, operation: 'SendMessage', input: {} })).rejects.toThrow(
      /names none of its resource types \(queue\)/,
    );
  });
});
