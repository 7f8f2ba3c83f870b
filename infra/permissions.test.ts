/**
 * Every AWS SDK command the deployed code sends is granted by the policy infra/settings.ts gives
 * the function that sends it, as AWS would authorize it: the action and the resource type of AWS's
 * Service Authorization Reference, evaluated by an IAM policy simulator (packages/local-iam, the
 * same as the local stack's). A command added to the code fails here until it is listed below, and
 * its grant until the policy allows it; a grant nothing sends fails too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AuthorizationRequest,
  authorizationRequests,
  policyAuthorizer,
  type Service,
} from '@svc/local-iam';
import { describe, expect, it } from 'vitest';
import { FunctionName, functionPermissions, type PolicyArns, previewQueuePrefix } from './settings.ts';

const partition = 'aws';
const region = 'eu-west-1';
const account = '123456789012';
const scope = { partition, region, account };
const arn = (service: string, resource: string) =>
  `arn:${partition}:${service}:${region}:${account}:${resource}`;

/** A production stage's resources, named as SST names them. */
const tableName = 'preview-composition-production-TableTable-bcdefgh';
const jobsName = 'preview-composition-production-JobsQueue-bcdefgh';
const deadLetterName = 'preview-composition-production-DeadLetterQueue-bcdefgh';
const previewQueueName = `${previewQueuePrefix('production')}c-1-service-d-0`;
const topics = ['orders', 'billing-*'];
const topicArn = arn('sns', 'billing-eu');
const arns: PolicyArns<string> = {
  table: arn('dynamodb', `table/${tableName}`),
  tableIndexes: arn('dynamodb', `table/${tableName}/index/*`),
  jobs: arn('sqs', jobsName),
  deadLetter: arn('sqs', deadLetterName),
  clusters: [arn('eks', 'cluster/previews')],
  previewQueues: arn('sqs', `${previewQueuePrefix('production')}*`),
  topics: topics.map((topic) => arn('sns', topic)),
};

/** What a command is sent on. */
const Target = {
  Table: 'table',
  Index: 'index',
  Jobs: 'jobs',
  DeadLetter: 'dead-letter',
  PreviewQueue: 'preview-queue',
  Topic: 'topic',
  Subscription: 'subscription',
  Cluster: 'cluster',
  Unscoped: 'unscoped',
} as const;
type Target = (typeof Target)[keyof typeof Target];

const queueUrl = (name: string) => `https://sqs.${region}.amazonaws.com/${account}/${name}`;

/** An input naming the target the way the code does. */
const inputs: Record<Target, Record<string, unknown>> = {
  [Target.Table]: { TableName: tableName },
  [Target.Index]: { TableName: tableName, IndexName: 'gsi1' },
  [Target.Jobs]: { QueueUrl: queueUrl(jobsName) },
  [Target.DeadLetter]: { QueueUrl: queueUrl(deadLetterName) },
  [Target.PreviewQueue]: { QueueUrl: queueUrl(previewQueueName), QueueName: previewQueueName },
  [Target.Topic]: { TopicArn: topicArn },
  [Target.Subscription]: { SubscriptionArn: `${topicArn}:3f1c4c5e-7e0a-4a8e-9d43-5b0c8c6f2a11` },
  [Target.Cluster]: { name: 'previews' },
  [Target.Unscoped]: {},
};

/** The resource type each target is authorized as (null: `*`, for actions with none). */
const resourceTypes: Record<Target, string | null> = {
  [Target.Table]: 'table',
  [Target.Index]: 'index',
  [Target.Jobs]: 'queue',
  [Target.DeadLetter]: 'queue',
  [Target.PreviewQueue]: 'queue',
  // AWS authorizes a subscription's calls on its topic.
  [Target.Topic]: 'topic',
  [Target.Subscription]: 'topic',
  [Target.Cluster]: 'cluster',
  [Target.Unscoped]: null,
};

type Sends = Partial<Record<FunctionName, readonly Target[]>>;
const { Table, Index, Jobs, DeadLetter, PreviewQueue, Topic, Subscription, Cluster, Unscoped } = Target;
const items = [Table] as const;
const everyStore = { api: items, worker: items };

/**
 * Who sends each command, on what. The API and the worker share the stores; the webhook stores a
 * delivery (a conditional put, the received mark, a duplicate's read) and sends its job.
 */
const sends: Record<string, Sends> = {
  'dynamodb:GetItem': { ...everyStore, webhook: items },
  'dynamodb:PutItem': { ...everyStore, webhook: items },
  'dynamodb:UpdateItem': { ...everyStore, webhook: items },
  'dynamodb:DeleteItem': everyStore,
  'dynamodb:Query': { api: [Table, Index], worker: [Table, Index] },
  'dynamodb:TransactWriteItems': everyStore,
  'dynamodb:BatchWriteItem': everyStore,
  // /healthz.
  'dynamodb:DescribeTable': { api: [Table] },
  'sqs:SendMessage': { api: [Jobs], worker: [Jobs], webhook: [Jobs] },
  // The worker consumes the job queue; the API replays the dead-letter queue.
  'sqs:ReceiveMessage': { api: [DeadLetter], worker: [Jobs] },
  'sqs:DeleteMessage': { api: [DeadLetter], worker: [Jobs] },
  'sqs:ChangeMessageVisibility': { api: [DeadLetter], worker: [Jobs] },
  // /healthz on the job queue; message isolation reads its queues' ARNs.
  'sqs:GetQueueAttributes': { api: [Jobs], worker: [PreviewQueue] },
  'sqs:CreateQueue': { worker: [PreviewQueue] },
  'sqs:SetQueueAttributes': { worker: [PreviewQueue] },
  'sqs:DeleteQueue': { worker: [PreviewQueue] },
  'sqs:ListQueues': { worker: [Unscoped] },
  'sns:ListTopics': { worker: [Unscoped] },
  'sns:Subscribe': { worker: [Topic] },
  'sns:ListSubscriptionsByTopic': { worker: [Topic] },
  'sns:GetSubscriptionAttributes': { worker: [Subscription] },
  'sns:Unsubscribe': { worker: [Subscription] },
  'eks:DescribeCluster': { api: [Cluster], worker: [Cluster] },
};

/**
 * Granted for AWS's own use, not for a call of the code: Lambda's event source mapping reads the
 * job queue with the worker's role.
 */
const grantedForAws: Record<string, Sends> = {
  'sqs:ReceiveMessage': { worker: [Jobs] },
  'sqs:DeleteMessage': { worker: [Jobs] },
  'sqs:ChangeMessageVisibility': { worker: [Jobs] },
  'sqs:GetQueueAttributes': { worker: [Jobs] },
};

/** lib-dynamodb's commands marshal their input and send the client command they stand for. */
const documentOperations: Record<string, string> = {
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
  TransactWriteCommand: 'TransactWriteItems',
  TransactGetCommand: 'TransactGetItems',
  BatchWriteCommand: 'BatchWriteItem',
  BatchGetCommand: 'BatchGetItem',
};

const root = join(import.meta.dirname, '..');

/** The deployed code: every package's sources but the local stack and its stand-ins, tests aside. */
function productSources(): string[] {
  const packages = readdirSync(join(root, 'packages')).filter((name) => !name.startsWith('local'));
  return packages.flatMap((name) =>
    readdirSync(join(root, 'packages', name, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('testing/'))
      .map((file) => join(root, 'packages', name, 'src', file)),
  );
}

/** `service:Operation` of every SDK command the product code constructs, with where it does. */
function sentCommands(): Map<string, string> {
  const found = new Map<string, string>();
  const imports = /import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/(client-([a-z0-9-]+)|lib-dynamodb)'/g;
  for (const file of productSources()) {
    const source = readFileSync(file, 'utf8');
    for (const [, names = '', module = '', client] of source.matchAll(imports)) {
      for (const specifier of names.split(',').map((s) => s.trim())) {
        if (!/^[A-Za-z]+Command$/.test(specifier) || !source.includes(`new ${specifier}(`)) continue;
        const operation =
          module === 'lib-dynamodb' ? documentOperations[specifier] : specifier.replace(/Command$/, '');
        const service = client ?? 'dynamodb';
        found.set(`${service}:${operation ?? `<${specifier}: add it to documentOperations>`}`, file);
      }
    }
  }
  return found;
}

const serviceOf = (command: string) => command.split(':')[0] as Service;
const operationOf = (command: string) => command.split(':')[1] as string;

/** The input a command is sent with on a target; a transaction takes every kind of item. */
function inputOf(command: string, target: Target): Record<string, unknown> {
  const input = inputs[target];
  if (command === 'dynamodb:TransactWriteItems') {
    return {
      TransactItems: ['Put', 'Update', 'Delete', 'ConditionCheck'].map((kind) => ({ [kind]: input })),
    };
  }
  if (command === 'dynamodb:BatchWriteItem') return { RequestItems: { [input.TableName as string]: [] } };
  return input;
}

function requestsOf(command: string, target: Target): Promise<AuthorizationRequest[]> {
  return authorizationRequests(
    { service: serviceOf(command), operation: operationOf(command), input: inputOf(command, target) },
    scope,
  );
}

const permissions = functionPermissions(arns);
const authorizers = Object.fromEntries(
  Object.values(FunctionName).map((name) => [
    name,
    policyAuthorizer({
      principal: `arn:aws:sts::${account}:assumed-role/preview-composition-production-${name}/${name}`,
      account,
      statements: permissions[name],
    }),
  ]),
) as Record<FunctionName, ReturnType<typeof policyAuthorizer>>;

const cases = (table: Record<string, Sends>) =>
  Object.entries(table).flatMap(([command, by]) =>
    Object.entries(by).flatMap(([name, targets]) =>
      (targets ?? []).map((target) => [command, name as FunctionName, target] as const),
    ),
  );

describe('the IAM policy of each function', () => {
  it('lists every AWS command the deployed code sends, and no other', () => {
    const sent = sentCommands();
    const missing = [...sent.keys()].filter((command) => !(command in sends));
    expect(
      missing,
      `sent but not listed in \`sends\`: ${missing.map((c) => `${c} (${sent.get(c)})`)}`,
    ).toEqual([]);
    expect(Object.keys(sends).filter((command) => !sent.has(command))).toEqual([]);
  });

  it.each(cases(sends))(
    '%s by the %s function on its %s is an action of the reference on the expected resource type, and is allowed',
    async (command, name, target) => {
      const requests = await requestsOf(command, target);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) expect(request.resourceType).toBe(resourceTypes[target]);
      expect(await authorizers[name].firstDenied(requests)).toBeNull();
    },
  );

  it('authorizes a subscription by its topic: Unsubscribe and GetSubscriptionAttributes on the topic ARN', async () => {
    for (const command of ['sns:Unsubscribe', 'sns:GetSubscriptionAttributes']) {
      expect(await requestsOf(command, Target.Subscription)).toEqual([
        { action: command, resource: topicArn, resourceType: 'topic' },
      ]);
    }
  });

  it('grants nothing a function does not send, but what AWS itself uses its role for', async () => {
    const key = (name: FunctionName, request: AuthorizationRequest) =>
      `${name}: ${request.action} on ${request.resource}`;
    const needed = new Set<string>();
    for (const [command, name, target] of [...cases(sends), ...cases(grantedForAws)]) {
      for (const request of await requestsOf(command, target)) needed.add(key(name, request));
    }
    const overGranted = new Set<string>();
    for (const command of Object.keys(sends)) {
      for (const target of Object.values(Target)) {
        // A target this command cannot name (a queue for a table command) is no question.
        const requests = await requestsOf(command, target).catch(() => []);
        for (const name of Object.values(FunctionName)) {
          for (const request of requests) {
            if (needed.has(key(name, request))) continue;
            if ((await authorizers[name].firstDenied([request])) === null)
              overGranted.add(key(name, request));
          }
        }
      }
    }
    expect([...overGranted]).toEqual([]);
  });
});
