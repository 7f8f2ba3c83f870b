/**
 * The role the deploy workflow assumes for one stage (`secrets.AWS_DEPLOY_ROLE_ARN` of the GitHub
 * environment of the same name): its trust, GitHub's OIDC tokens of this repository's deploy job in
 * that environment and nothing else, and its policy, what `sst deploy` does to create, update and
 * remove what sst.config.ts declares for the stage, scoped to the stage's names where AWS allows.
 * Plain data: `npm run ci-role -- --repository <owner>/<repo> --account <id> --stage <stage>`
 * prints both for `aws iam create-role` (docs/deploy.md); infra/wiring.test.ts checks them against
 * the synthesized stage and the docs.
 */
import { parseArgs } from 'node:util';
import { appName, stageClusters } from './settings.ts';

/** GitHub Actions' OIDC issuer (an IAM OIDC provider of the account, created once). */
const githubIssuer = 'token.actions.githubusercontent.com';

interface Statement {
  Sid: string;
  Effect: 'Allow';
  Action: string[];
  Resource: string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface RoleTarget {
  accountId: string;
  region: string;
  /** The SST app's name (sst.config.ts). */
  app: string;
  stage: string;
  /** Every EKS cluster of the stage (`stageClusters`), each with the functions' access entries. */
  clusters: readonly { eksClusterName: string; region: string }[];
}

/** Trust: only this repository's jobs running in this GitHub environment, for STS. */
export function deployRoleTrust(input: { accountId: string; repository: string; environment: string }) {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Federated: `arn:aws:iam::${input.accountId}:oidc-provider/${githubIssuer}` },
        Action: 'sts:AssumeRoleWithWebIdentity',
        Condition: {
          StringEquals: {
            [`${githubIssuer}:aud`]: 'sts.amazonaws.com',
            [`${githubIssuer}:sub`]: `repo:${input.repository}:environment:${input.environment}`,
          },
        },
      },
    ],
  };
}

/** What SST names the stage's resources from: `<app>-<stage>-<component>-<random>`. */
const named = (t: RoleTarget) => `${t.app}-${t.stage}-*`;

/** The actions that create, read, update, tag and delete each kind of resource the stage has. */
export function deployRolePolicy(t: RoleTarget) {
  const arn = (service: string, resource: string, region: string = t.region) =>
    `arn:aws:${service}:${region}:${t.accountId}:${resource}`;
  const roles = `arn:aws:iam::${t.accountId}:role/${named(t)}`;
  const statements: Statement[] = [
    {
      Sid: 'SstState',
      Effect: 'Allow',
      // SST's state, its encrypted secrets and the function packages (buckets of its bootstrap).
      Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:ListBucket', 's3:GetBucketLocation'],
      Resource: [
        'arn:aws:s3:::sst-state-*',
        'arn:aws:s3:::sst-state-*/*',
        'arn:aws:s3:::sst-asset-*',
        'arn:aws:s3:::sst-asset-*/*',
      ],
    },
    {
      Sid: 'SstBootstrap',
      Effect: 'Allow',
      Action: ['ssm:GetParameter', 'ssm:GetParameters', 'ssm:PutParameter'],
      Resource: [arn('ssm', 'parameter/sst/*')],
    },
    { Sid: 'Caller', Effect: 'Allow', Action: ['sts:GetCallerIdentity'], Resource: ['*'] },
    {
      Sid: 'Functions',
      Effect: 'Allow',
      Action: [
        'lambda:CreateFunction',
        'lambda:DeleteFunction',
        'lambda:GetFunction',
        'lambda:GetFunctionConfiguration',
        'lambda:UpdateFunctionCode',
        'lambda:UpdateFunctionConfiguration',
        'lambda:ListVersionsByFunction',
        'lambda:GetFunctionCodeSigningConfig',
        'lambda:AddPermission',
        'lambda:RemovePermission',
        'lambda:GetPolicy',
        'lambda:CreateFunctionUrlConfig',
        'lambda:UpdateFunctionUrlConfig',
        'lambda:DeleteFunctionUrlConfig',
        'lambda:GetFunctionUrlConfig',
        'lambda:PutFunctionEventInvokeConfig',
        'lambda:UpdateFunctionEventInvokeConfig',
        'lambda:DeleteFunctionEventInvokeConfig',
        'lambda:GetFunctionEventInvokeConfig',
        'lambda:TagResource',
        'lambda:UntagResource',
        'lambda:ListTags',
      ],
      Resource: [arn('lambda', `function:${named(t)}`)],
    },
    {
      Sid: 'EventSourceMapping',
      Effect: 'Allow',
      // Event source mappings are named by a UUID, known only once created.
      Action: [
        'lambda:CreateEventSourceMapping',
        'lambda:UpdateEventSourceMapping',
        'lambda:DeleteEventSourceMapping',
        'lambda:GetEventSourceMapping',
        'lambda:ListEventSourceMappings',
      ],
      Resource: ['*'],
    },
    {
      Sid: 'Roles',
      Effect: 'Allow',
      Action: [
        'iam:CreateRole',
        'iam:DeleteRole',
        'iam:GetRole',
        'iam:UpdateRole',
        'iam:UpdateAssumeRolePolicy',
        'iam:TagRole',
        'iam:UntagRole',
        'iam:PutRolePolicy',
        'iam:GetRolePolicy',
        'iam:DeleteRolePolicy',
        'iam:ListRolePolicies',
        'iam:AttachRolePolicy',
        'iam:DetachRolePolicy',
        'iam:ListAttachedRolePolicies',
        'iam:ListInstanceProfilesForRole',
      ],
      Resource: [roles],
    },
    {
      Sid: 'PassRoles',
      Effect: 'Allow',
      // The functions' roles to Lambda, the schedules' role to EventBridge Scheduler: nothing else.
      Action: ['iam:PassRole'],
      Resource: [roles],
      Condition: {
        StringEquals: { 'iam:PassedToService': ['lambda.amazonaws.com', 'scheduler.amazonaws.com'] },
      },
    },
    {
      Sid: 'LogGroups',
      Effect: 'Allow',
      Action: [
        'logs:CreateLogGroup',
        'logs:DeleteLogGroup',
        'logs:PutRetentionPolicy',
        'logs:DeleteRetentionPolicy',
        'logs:TagResource',
        'logs:UntagResource',
        'logs:ListTagsForResource',
      ],
      Resource: [
        arn('logs', `log-group:/aws/lambda/${named(t)}`),
        arn('logs', `log-group:/aws/lambda/${named(t)}:*`),
      ],
    },
    { Sid: 'LogGroupsList', Effect: 'Allow', Action: ['logs:DescribeLogGroups'], Resource: ['*'] },
    {
      Sid: 'Table',
      Effect: 'Allow',
      Action: [
        'dynamodb:CreateTable',
        'dynamodb:DeleteTable',
        'dynamodb:DescribeTable',
        'dynamodb:UpdateTable',
        'dynamodb:DescribeTimeToLive',
        'dynamodb:UpdateTimeToLive',
        'dynamodb:DescribeContinuousBackups',
        'dynamodb:UpdateContinuousBackups',
        'dynamodb:TagResource',
        'dynamodb:UntagResource',
        'dynamodb:ListTagsOfResource',
      ],
      Resource: [arn('dynamodb', `table/${named(t)}`)],
    },
    {
      Sid: 'Queues',
      Effect: 'Allow',
      Action: [
        'sqs:CreateQueue',
        'sqs:DeleteQueue',
        'sqs:GetQueueAttributes',
        'sqs:SetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:TagQueue',
        'sqs:UntagQueue',
        'sqs:ListQueueTags',
      ],
      Resource: [arn('sqs', named(t))],
    },
    {
      Sid: 'AlarmTopic',
      Effect: 'Allow',
      Action: [
        'sns:CreateTopic',
        'sns:DeleteTopic',
        'sns:GetTopicAttributes',
        'sns:SetTopicAttributes',
        'sns:Subscribe',
        'sns:Unsubscribe',
        'sns:GetSubscriptionAttributes',
        'sns:SetSubscriptionAttributes',
        'sns:TagResource',
        'sns:UntagResource',
        'sns:ListTagsForResource',
      ],
      Resource: [arn('sns', named(t)), arn('sns', `${named(t)}:*`)],
    },
    {
      Sid: 'Api',
      Effect: 'Allow',
      // API Gateway's IAM actions are the HTTP methods of its management API.
      Action: [
        'apigateway:GET',
        'apigateway:POST',
        'apigateway:PUT',
        'apigateway:PATCH',
        'apigateway:DELETE',
        'apigateway:TagResource',
      ],
      Resource: [
        `arn:aws:apigateway:${t.region}::/apis`,
        `arn:aws:apigateway:${t.region}::/apis/*`,
        `arn:aws:apigateway:${t.region}::/tags/*`,
      ],
    },
    {
      Sid: 'Schedules',
      Effect: 'Allow',
      Action: [
        'scheduler:CreateSchedule',
        'scheduler:UpdateSchedule',
        'scheduler:DeleteSchedule',
        'scheduler:GetSchedule',
        'scheduler:TagResource',
      ],
      Resource: [arn('scheduler', `schedule/default/${named(t)}`)],
    },
    {
      Sid: 'Alarms',
      Effect: 'Allow',
      // Alarm names are generated by the deploy (`<id>-<random>`): the account's alarms in the region.
      Action: [
        'cloudwatch:PutMetricAlarm',
        'cloudwatch:DeleteAlarms',
        'cloudwatch:DescribeAlarms',
        'cloudwatch:TagResource',
        'cloudwatch:ListTagsForResource',
      ],
      Resource: [arn('cloudwatch', 'alarm:*')],
    },
    {
      Sid: 'ClusterAccessEntries',
      Effect: 'Allow',
      Action: [
        'eks:CreateAccessEntry',
        'eks:DescribeAccessEntry',
        'eks:UpdateAccessEntry',
        'eks:DeleteAccessEntry',
        'eks:TagResource',
      ],
      Resource: t.clusters.flatMap((c) => [
        arn('eks', `cluster/${c.eksClusterName}`, c.region),
        arn('eks', `access-entry/${c.eksClusterName}/*`, c.region),
      ]),
    },
  ];
  return { Version: '2012-10-17', Statement: statements };
}

/** Every action the deploy role's policy allows, sorted: the list docs/deploy.md shows. */
export function deployRoleActions(t: RoleTarget): string[] {
  return [...new Set(deployRolePolicy(t).Statement.flatMap((s) => s.Action))].sort();
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      repository: { type: 'string' },
      account: { type: 'string' },
      stage: { type: 'string' },
      environment: { type: 'string' },
    },
  });
  if (!values.repository || !values.account || !values.stage) {
    console.error(
      'usage: npm run ci-role -- --repository <owner>/<repo> --account <id> --stage <stage> [--environment <github environment>]',
    );
    process.exit(2);
  }
  const { default: settings } = await import(`../stacks/${values.stage}.ts`);
  const target = {
    accountId: values.account,
    region: settings.region,
    app: appName,
    stage: values.stage,
    clusters: stageClusters(settings),
  };
  const trust = deployRoleTrust({
    accountId: values.account,
    repository: values.repository,
    environment: values.environment ?? values.stage,
  });
  console.log(JSON.stringify({ trust, policy: deployRolePolicy(target) }, null, 2));
}
