/**
 * What `sst deploy` (Pulumi's AWS provider, which is Terraform's) asks AWS, as IAM authorizes it,
 * to create, read, update, tag and remove each resource of a stage (infra/sst-resources.ts), with
 * the context keys the request carries: the tags it is created with, the role passed, the boundary
 * and managed policy of a role. infra/deploy-role.test.ts evaluates each against the deploy role.
 * Actions and resource types are the Service Authorization Reference's; which calls each resource
 * needs is the provider's, and AWS's documented extras: tag-on-create needs the tagging action
 * too (IAM, Lambda incl. event source mappings, SQS, SNS, DynamoDB, Logs, CloudWatch, EKS, S3
 * objects); Lambda reads the code object and, in a VPC, describes subnets, security groups and
 * VPCs with the caller's rights; an HTTP API stage's access logs need the log delivery actions.
 */
import type { AwsResource, Synthesis } from './sst-resources.ts';

export interface DeployCall {
  action: string;
  /** The resource's ARN, or `*` for an action AWS authorizes on no resource. */
  resource: string;
  context: Record<string, string | string[]>;
  /** Which resource needs it, for a failure's message. */
  of: string;
}

type Context = Record<string, string | string[]>;

const tagContext = (tags: Record<string, string>): Context => ({
  'aws:TagKeys': Object.keys(tags),
  ...Object.fromEntries(Object.entries(tags).map(([key, value]) => [`aws:RequestTag/${key}`, value])),
});

/** An API Gateway management path of the resource's region. */
const apigateway = (r: AwsResource, path: string) => `arn:aws:apigateway:${r.region}::${path}`;

function callsOf(s: Synthesis, r: AwsResource): [string, string, Context?][] {
  const tagged = tagContext(r.tags);
  const p = r.props;
  switch (r.type) {
    case 'aws:iam/role:Role': {
      const boundary = p.permissionsBoundary
        ? { 'iam:PermissionsBoundary': String(p.permissionsBoundary) }
        : ({} as Context);
      const managed = (p.managedPolicyArns as string[]).map(
        (policy) =>
          ['iam:AttachRolePolicy', r.arn, { ...boundary, 'iam:PolicyARN': policy }] as [
            string,
            string,
            Context,
          ],
      );
      return [
        ['iam:CreateRole', r.arn, { ...tagged, ...boundary }],
        ['iam:TagRole', r.arn, tagged],
        ['iam:GetRole', r.arn],
        ['iam:ListRolePolicies', r.arn],
        ['iam:GetRolePolicy', r.arn],
        ['iam:ListAttachedRolePolicies', r.arn],
        ['iam:PutRolePolicy', r.arn, boundary],
        ...managed,
        ['iam:UpdateAssumeRolePolicy', r.arn, boundary],
        ['iam:UntagRole', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        // A role made before it had the boundary is given it on its next deploy.
        ...(p.permissionsBoundary
          ? [['iam:PutRolePermissionsBoundary', r.arn, boundary] as [string, string, Context]]
          : []),
        ['iam:ListInstanceProfilesForRole', r.arn],
        ...(p.managedPolicyArns as string[]).map(
          (policy) =>
            ['iam:DetachRolePolicy', r.arn, { ...boundary, 'iam:PolicyARN': policy }] as [
              string,
              string,
              Context,
            ],
        ),
        ['iam:DeleteRolePolicy', r.arn, boundary],
        ['iam:DeleteRole', r.arn, boundary],
      ];
    }
    case 'aws:cloudwatch/logGroup:LogGroup':
      return [
        ['logs:CreateLogGroup', r.arn, tagged],
        ['logs:TagResource', r.arn, tagged],
        ['logs:PutRetentionPolicy', r.arn],
        ['logs:DescribeLogGroups', '*'],
        ['logs:ListTagsForResource', r.arn],
        ['logs:UntagResource', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        ['logs:DeleteRetentionPolicy', r.arn],
        ['logs:DeleteLogGroup', r.arn],
      ];
    case 'aws:s3/bucketObjectv2:BucketObjectv2': {
      const tags = { 's3:RequestObjectTagKeys': Object.keys(r.tags) };
      return [
        ['s3:PutObject', r.arn, tags],
        ['s3:PutObjectTagging', r.arn, tags],
        ['s3:GetObject', r.arn],
        ['s3:GetObjectTagging', r.arn],
        ['s3:DeleteObject', r.arn],
      ];
    }
    case 'aws:lambda/function:Function': {
      const passRole: [string, string, Context] = [
        'iam:PassRole',
        String(p.role),
        { 'iam:PassedToService': 'lambda.amazonaws.com' },
      ];
      const code = s.resources.find((o) => o.logical === r.logical.replace(/Function$/, 'Code'));
      const vpc: [string, string, Context?][] = p.vpcConfig
        ? [
            ['ec2:DescribeSubnets', '*'],
            ['ec2:DescribeSecurityGroups', '*'],
            ['ec2:DescribeVpcs', '*'],
          ]
        : [];
      const concurrency: [string, string, Context?][] =
        p.reservedConcurrentExecutions === undefined
          ? []
          : [
              ['lambda:PutFunctionConcurrency', r.arn],
              ['lambda:DeleteFunctionConcurrency', r.arn],
            ];
      return [
        ['lambda:CreateFunction', r.arn, tagged],
        ['lambda:TagResource', r.arn, tagged],
        passRole,
        ...(code ? [['s3:GetObject', code.arn] as [string, string]] : []),
        ...vpc,
        ...concurrency,
        ['lambda:GetFunction', r.arn],
        ['lambda:GetFunctionConfiguration', r.arn],
        ['lambda:ListVersionsByFunction', r.arn],
        ['lambda:GetFunctionCodeSigningConfig', r.arn],
        ['lambda:ListTags', r.arn],
        ['lambda:UpdateFunctionCode', r.arn],
        ['lambda:UpdateFunctionConfiguration', r.arn],
        ['lambda:UntagResource', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        ['lambda:DeleteFunction', r.arn],
      ];
    }
    case 'aws:lambda/functionUrl:FunctionUrl':
      return ['Create', 'Get', 'Update', 'Delete'].map((verb) => [`lambda:${verb}FunctionUrlConfig`, r.arn]);
    case 'aws:lambda/functionEventInvokeConfig:FunctionEventInvokeConfig':
      return ['Put', 'Get', 'Update', 'Delete'].map((verb) => [
        `lambda:${verb}FunctionEventInvokeConfig`,
        r.arn,
      ]);
    case 'aws:lambda/permission:Permission':
      return [
        ['lambda:AddPermission', r.arn],
        ['lambda:GetPolicy', r.arn],
        ['lambda:RemovePermission', r.arn],
      ];
    case 'aws:lambda/eventSourceMapping:EventSourceMapping': {
      const target = { 'lambda:FunctionArn': String(p.functionArn) };
      return [
        ['lambda:CreateEventSourceMapping', '*', { ...tagged, ...target }],
        ['lambda:TagResource', r.arn, tagged],
        ['lambda:GetEventSourceMapping', r.arn, target],
        ['lambda:ListEventSourceMappings', '*'],
        ['lambda:ListTags', r.arn],
        ['lambda:UpdateEventSourceMapping', r.arn, target],
        ['lambda:UntagResource', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        ['lambda:DeleteEventSourceMapping', r.arn, target],
      ];
    }
    case 'aws:sqs/queue:Queue':
      return [
        ['sqs:CreateQueue', r.arn, tagged],
        ['sqs:TagQueue', r.arn, tagged],
        ['sqs:GetQueueUrl', r.arn],
        ['sqs:GetQueueAttributes', r.arn],
        ['sqs:SetQueueAttributes', r.arn],
        ['sqs:ListQueueTags', r.arn],
        ['sqs:UntagQueue', r.arn],
        ['sqs:DeleteQueue', r.arn],
      ];
    case 'aws:dynamodb/table:Table':
      return [
        ['dynamodb:CreateTable', r.arn, tagged],
        ['dynamodb:TagResource', r.arn, tagged],
        ['dynamodb:DescribeTable', r.arn],
        ['dynamodb:DescribeTimeToLive', r.arn],
        ['dynamodb:UpdateTimeToLive', r.arn],
        ['dynamodb:DescribeContinuousBackups', r.arn],
        ['dynamodb:UpdateContinuousBackups', r.arn],
        ['dynamodb:ListTagsOfResource', r.arn],
        ['dynamodb:UpdateTable', r.arn],
        ['dynamodb:UntagResource', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        ['dynamodb:DeleteTable', r.arn],
      ];
    case 'aws:sns/topic:Topic':
      return [
        ['sns:CreateTopic', r.arn, tagged],
        ['sns:TagResource', r.arn, tagged],
        ['sns:GetTopicAttributes', r.arn],
        ['sns:SetTopicAttributes', r.arn],
        ['sns:ListTagsForResource', r.arn],
        ['sns:UntagResource', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        ['sns:DeleteTopic', r.arn],
      ];
    case 'aws:sns/topicSubscription:TopicSubscription': {
      // The Service Authorization Reference gives the subscription actions the topic's ARN.
      const topic = String(p.topic);
      return [
        ['sns:Subscribe', topic, { 'sns:Protocol': String(p.protocol), 'sns:Endpoint': String(p.endpoint) }],
        ['sns:GetSubscriptionAttributes', topic],
        ['sns:SetSubscriptionAttributes', topic],
        ['sns:Unsubscribe', topic],
      ];
    }
    case 'aws:scheduler/schedule:Schedule':
      return [
        ['scheduler:CreateSchedule', r.arn],
        ['iam:PassRole', String(p.role), { 'iam:PassedToService': 'scheduler.amazonaws.com' }],
        ['scheduler:GetSchedule', r.arn],
        ['scheduler:UpdateSchedule', r.arn],
        ['scheduler:DeleteSchedule', r.arn],
      ];
    case 'aws:cloudwatch/metricAlarm:MetricAlarm':
      return [
        ['cloudwatch:PutMetricAlarm', r.arn, tagged],
        ['cloudwatch:TagResource', r.arn, tagged],
        ['cloudwatch:DescribeAlarms', r.arn],
        ['cloudwatch:ListTagsForResource', r.arn],
        ['cloudwatch:UntagResource', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        ['cloudwatch:DeleteAlarms', r.arn],
      ];
    case 'aws:eks/accessEntry:AccessEntry': {
      const cluster = r.arn.replace(/:access-entry\/([^/]+)\/.*$/, ':cluster/$1');
      const entry: Context = {
        'eks:principalArn': String(p.principalArn),
        'eks:kubernetesGroups': p.kubernetesGroups as string[],
        'eks:accessEntryType': String(p.type),
      };
      return [
        ['eks:CreateAccessEntry', cluster, { ...tagged, ...entry }],
        ['eks:TagResource', r.arn, tagged],
        ['eks:DescribeAccessEntry', r.arn],
        ['eks:UpdateAccessEntry', r.arn],
        ['eks:UntagResource', r.arn, { 'aws:TagKeys': Object.keys(r.tags) }],
        ['eks:DeleteAccessEntry', r.arn],
      ];
    }
    case 'aws:apigatewayv2/api:Api':
      return [
        ['apigateway:POST', apigateway(r, '/apis'), tagged],
        ['apigateway:GET', r.arn],
        ['apigateway:PATCH', r.arn],
        ['apigateway:DELETE', r.arn],
        ['apigateway:POST', apigateway(r, `/tags/${encodeURIComponent(r.arn)}`), tagged],
        ['apigateway:GET', apigateway(r, `/tags/${encodeURIComponent(r.arn)}`)],
        ['apigateway:DELETE', apigateway(r, `/tags/${encodeURIComponent(r.arn)}`)],
      ];
    case 'aws:apigatewayv2/stage:Stage': {
      const collection = r.arn.replace(/\/[^/]+$/, '');
      // Access logs to a log group: API Gateway sets up the delivery with the caller's rights.
      const delivery = [
        'logs:CreateLogDelivery',
        'logs:GetLogDelivery',
        'logs:UpdateLogDelivery',
        'logs:DeleteLogDelivery',
        'logs:ListLogDeliveries',
        'logs:PutResourcePolicy',
        'logs:DescribeResourcePolicies',
      ].map((action) => [action, '*'] as [string, string]);
      return [
        ['apigateway:POST', collection, tagged],
        ['apigateway:GET', r.arn],
        ['apigateway:PATCH', r.arn],
        ['apigateway:DELETE', r.arn],
        ...delivery,
        ['logs:DescribeLogGroups', '*'],
      ];
    }
    case 'aws:apigatewayv2/integration:Integration':
    case 'aws:apigatewayv2/route:Route':
    case 'aws:apigatewayv2/domainName:DomainName': {
      const collection = r.arn.replace(/\/[^/]+$/, '');
      return [
        ['apigateway:POST', collection, r.type.endsWith('DomainName') ? tagged : {}],
        ['apigateway:GET', r.arn],
        ['apigateway:PATCH', r.arn],
        ['apigateway:DELETE', r.arn],
      ];
    }
    case 'aws:acm/certificate:Certificate':
      return [
        ['acm:RequestCertificate', '*', { ...tagged, 'acm:DomainNames': [String(p.domainName)] }],
        ['acm:AddTagsToCertificate', r.arn, tagged],
        ['acm:DescribeCertificate', r.arn],
        ['acm:ListTagsForCertificate', r.arn],
        ['acm:DeleteCertificate', r.arn],
      ];
    case 'aws:route53/record:Record':
      return [
        ['route53:ListHostedZones', '*'],
        ['route53:GetHostedZone', r.arn],
        [
          'route53:ChangeResourceRecordSets',
          r.arn,
          { 'route53:ChangeResourceRecordSetsNormalizedRecordNames': [String(p.name)] },
        ],
        ['route53:ListResourceRecordSets', r.arn],
        ['route53:GetChange', 'arn:aws:route53:::change/CSTANDIN'],
      ];
    default:
      throw new Error(
        `no deploy calls known for ${r.type} (${r.logical}): add them to infra/deploy-calls.ts`,
      );
  }
}

/**
 * Every call of the deploy of a stage: the provider's identity check, SST's state and bootstrap
 * for the stage, then each resource's.
 */
export function deployCalls(s: Synthesis): DeployCall[] {
  const state = `arn:aws:s3:::sst-state-${s.assetBucket.slice('sst-asset-'.length)}`;
  const stageObjects = [
    `${state}/app/${s.app.name}/${s.app.stage}.json`,
    `${state}/lock/${s.app.name}/${s.app.stage}.json`,
    `${state}/secret/${s.app.name}/${s.app.stage}.json`,
    `${state}/update/${s.app.name}/${s.app.stage}/0000000000.json`,
  ];
  const ssm = (name: string) => `arn:aws:ssm:${s.region}:${s.account}:parameter${name}`;
  const passphrase = ssm(`/sst/passphrase/${s.app.name}/${s.app.stage}`);
  const sst: DeployCall[] = [
    { action: 'sts:GetCallerIdentity', resource: '*', context: {}, of: 'the AWS provider' },
    { action: 'ssm:GetParameter', resource: ssm('/sst/bootstrap'), context: {}, of: 'SST bootstrap' },
    { action: 'ssm:GetParameter', resource: passphrase, context: {}, of: "the stage's passphrase" },
    // The first deploy of a stage makes its passphrase.
    { action: 'ssm:PutParameter', resource: passphrase, context: {}, of: "the stage's passphrase" },
    { action: 's3:ListBucket', resource: state, context: {}, of: 'SST state' },
    ...stageObjects.flatMap((object) =>
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((action) => ({
        action,
        resource: object,
        context: {},
        of: 'SST state',
      })),
    ),
  ];
  return [
    ...sst,
    ...s.resources.flatMap((r) =>
      callsOf(s, r).map(([action, resource, context = {}]) => ({
        action,
        resource,
        context,
        of: `${r.type} ${r.logical}`,
      })),
    ),
  ];
}
