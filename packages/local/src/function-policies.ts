/**
 * The local stack's functions as AWS sees them. The API, the worker and the webhook each call
 * DynamoDB Local and fauxqs as an identity of its own, held to the policy infra/settings.ts
 * synthesizes for that function on AWS (`functionPermissions`), written over the ARNs the emulators
 * answer: a call the deployed function's role would be refused is refused here the same way.
 */
import {
  type ArnScope,
  type Authorizer,
  enforcePolicy,
  type Identity,
  type PolicyHeldClient,
  policyAuthorizer,
  Service,
  type Statement,
} from '@svc/local-iam';
import { appName, FunctionName, functionPermissions } from '../../../infra/settings.ts';

export { FunctionName };

/** What a function's policy names, as the emulators answer it. */
export interface PolicyTargets {
  /** DynamoDB Local's `TableArn`. */
  tableArn: string;
  /** fauxqs's `QueueArn`s. */
  jobQueueArn: string;
  deadLetterQueueArn: string;
  /** The stage's isolated queues' prefix (`preview-` locally). */
  previewQueuePrefix: string;
  /** The stage's `messageTopics`. */
  messageTopics: readonly string[];
  /** The clusters the settings name (no EKS call is made locally, but the policy names them). */
  clusters: readonly string[];
}

/** A change to a function's deployed policy: an older deploy's, a narrower one. */
type PolicyEdit = (deployed: readonly Statement[]) => readonly Statement[];

export interface FunctionPolicies {
  /** Holds a client to that function's policy. */
  hold(name: FunctionName, client: PolicyHeldClient): void;
  /** The worker's topics from now on: a stage redeployed with other `messageTopics`. */
  grantWorkerTopics(topics: readonly string[]): void;
  /** The function's policy from now on: the deployed one as `edit` changes it; null puts it back. */
  edit(name: FunctionName, edit: PolicyEdit | null): void;
  identity(name: FunctionName): Identity;
}

function scopeOf(arn: string): ArnScope {
  const [, partition, , region, account] = arn.split(':');
  if (!partition || !region || !account) throw new Error(`not an ARN: ${arn}`);
  return { partition, region, account };
}

export function functionPolicies(targets: PolicyTargets): FunctionPolicies {
  const table = scopeOf(targets.tableArn);
  // fauxqs serves SNS beside SQS, in the same account and region.
  const queues = scopeOf(targets.jobQueueArn);
  if (table.account !== queues.account) {
    throw new Error(
      `DynamoDB Local (${table.account}) and fauxqs (${queues.account}) answer different accounts: the functions' policies assume one`,
    );
  }
  const scopes = {
    [Service.DynamoDB]: table,
    [Service.Sqs]: queues,
    [Service.Sns]: queues,
    [Service.Eks]: queues,
  };
  const arn = (service: string, resource: string) =>
    `arn:${queues.partition}:${service}:${queues.region}:${queues.account}:${resource}`;
  let topics = targets.messageTopics;
  const edits = new Map<FunctionName, PolicyEdit>();
  const authorizers = () => {
    const permissions = functionPermissions({
      table: targets.tableArn,
      tableIndexes: `${targets.tableArn}/index/*`,
      jobs: targets.jobQueueArn,
      deadLetter: targets.deadLetterQueueArn,
      clusters: targets.clusters.map((name) => arn('eks', `cluster/${name}`)),
      previewQueues: arn('sqs', `${targets.previewQueuePrefix}*`),
      topics: topics.map((topic) => arn('sns', topic)),
    });
    return Object.fromEntries(
      Object.values(FunctionName).map((name) => [
        name,
        policyAuthorizer({
          principal: `arn:${queues.partition}:sts::${queues.account}:assumed-role/${appName}-local-${name}/${name}`,
          account: queues.account,
          statements: edits.get(name)?.(permissions[name]) ?? permissions[name],
        }),
      ]),
    ) as Record<FunctionName, Authorizer>;
  };
  let current = authorizers();
  return {
    hold: (name, client) => enforcePolicy(client, () => current[name], scopes),
    grantWorkerTopics(granted) {
      topics = granted;
      current = authorizers();
    },
    edit(name, edit) {
      if (edit) edits.set(name, edit);
      else edits.delete(name);
      current = authorizers();
    },
    identity: (name) => current[name].identity,
  };
}
