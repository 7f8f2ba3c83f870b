import { describe, expect, it } from 'vitest';
import { policyAuthorizer, SimulationError } from './policy.ts';

const table = 'arn:aws:dynamodb:eu-west-1:123456789012:table/svc';
const authorizer = policyAuthorizer({
  principal: 'arn:aws:sts::123456789012:assumed-role/svc-webhook/webhook',
  account: '123456789012',
  statements: [
    { actions: ['dynamodb:PutItem', 'dynamodb:Query'], resources: [table, `${table}/index/*`] },
    { actions: ['sqs:SendMessage'], resources: ['arn:aws:sqs:eu-west-1:123456789012:preview_prod_*'] },
  ],
});
const request = (action: string, resource: string) => ({ action, resource, resourceType: null });

describe('policyAuthorizer', () => {
  it('allows what a statement names, wildcards in ARNs included', async () => {
    expect(
      await authorizer.firstDenied([
        request('dynamodb:PutItem', table),
        request('dynamodb:Query', `${table}/index/gsi1`),
        request('sqs:SendMessage', 'arn:aws:sqs:eu-west-1:123456789012:preview_prod_c-1-a-0'),
      ]),
    ).toBeNull();
  });

  it('answers the first request no statement allows', async () => {
    const denied = request('dynamodb:DeleteItem', table);
    expect(await authorizer.firstDenied([request('dynamodb:PutItem', table), denied])).toEqual(denied);
    expect(
      await authorizer.firstDenied([
        request('sqs:SendMessage', 'arn:aws:sqs:eu-west-1:123456789012:preview_staging_x'),
      ]),
    ).not.toBeNull();
    expect(await authorizer.firstDenied([request('sqs:ListQueues', '*')])).not.toBeNull();
  });

  it('does not let a grant on an index cover its table, nor one on a subscription cover its topic', async () => {
    const indexOnly = policyAuthorizer({
      principal: 'arn:aws:sts::123456789012:assumed-role/r/s',
      account: '123456789012',
      statements: [
        { actions: ['dynamodb:Query'], resources: [`${table}/index/*`] },
        { actions: ['sns:Unsubscribe'], resources: ['arn:aws:sns:eu-west-1:123456789012:orders:*'] },
      ],
    });
    expect(await indexOnly.firstDenied([request('dynamodb:Query', table)])).not.toBeNull();
    expect(
      await indexOnly.firstDenied([request('sns:Unsubscribe', 'arn:aws:sns:eu-west-1:123456789012:orders')]),
    ).not.toBeNull();
  });

  it('refuses to decide on an ARN that is of no resource type of the action', async () => {
    await expect(
      authorizer.firstDenied([request('dynamodb:PutItem', 'arn:aws:sqs:eu-west-1:123456789012:jobs')]),
    ).rejects.toBeInstanceOf(SimulationError);
  });
});
