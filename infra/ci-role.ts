/**
 * The role the deploy workflow assumes for one stage (`secrets.AWS_DEPLOY_ROLE_ARN` of the GitHub
 * environment of the same name), and the permissions boundary of every role that deploy creates.
 * Derived from the stage's synthesized resources (infra/synth.ts: the infra files run with the
 * recording stand-ins, named as SST 4.17.1 names them), so each grant names the stage's own
 * resources — SST cuts long names (`preview-compositi-production-…`), which no fixed pattern
 * follows — and checked by infra/deploy-role.test.ts with a policy simulator against every call
 * the deploy makes, for every shape of stage.
 *
 * It cannot rewrite itself: its own role, its policies and the boundary are denied to it, it
 * creates and changes only roles bounded by that boundary, attaches only the AWS managed policies
 * SST attaches, passes each of the stage's roles only to its service, and creates EKS access
 * entries only for the stage's roles in the service's Kubernetes group.
 *
 * `npm run -s ci-role -- --repository <owner>/<repo> --account <id> --stage <stage>` prints
 * `{ role: { name, trust, policies: [{ name, policy }] }, boundary: { name, policy } }` for
 * docs/deploy.md.
 */
import { parseArgs } from 'node:util';
import { deployProblems, type StageSettings } from '../stacks/schema.ts';
import { alarmName } from './alarms.ts';
import { appName, permissionsBoundaryName, previewQueuePrefix, stageClusters } from './settings.ts';
import type { AwsResource, Synthesis } from './sst-resources.ts';
import { synthesize } from './synth.ts';

/** GitHub Actions' OIDC issuer (an IAM OIDC provider of the account, created once). */
const githubIssuer = 'token.actions.githubusercontent.com';

type Condition = Record<string, Record<string, string | string[]>>;

interface Statement {
  Sid: string;
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: string[];
  Condition?: Condition;
}

export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: Statement[];
}

/** The deploy role's name: not one SST gives (its names end in a random part). */
export const deployRoleName = (stage: string) => `${appName}-${stage}-deploy`;

/**
 * IAM holds a role's inline policies to 10,240 characters in all and a managed policy to 6,144
 * (whitespace aside): the role's grants are managed policies of its own, as many as they fill.
 */
const managedPolicyLimit = 6144;

/** The policy split in order into managed policies within IAM's limit, named `<role>-<n>`. */
function managedPolicies(stage: string, policy: PolicyDocument) {
  const packed: Statement[][] = [];
  const size = (statements: Statement[]) =>
    JSON.stringify({ Version: policy.Version, Statement: statements }).length;
  for (const statement of policy.Statement) {
    const last = packed.at(-1);
    if (last && size([...last, statement]) <= managedPolicyLimit) last.push(statement);
    else packed.push([statement]);
  }
  return packed.map((statements, i) => ({
    name: `${deployRoleName(stage)}-${i + 1}`,
    policy: { Version: policy.Version, Statement: statements },
  }));
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

/** The synthesized resources of one Pulumi type. */
const ofType = (s: Synthesis, type: string) => s.resources.filter((r) => r.type === type);

/** What grants name a resource by: its name before SST's random part, then any random part. */
const pattern = (r: AwsResource) => `${r.namePrefix ?? r.name}-*`;

/** ARNs of the resources of a type, each by its pattern. */
function patterns(s: Synthesis, type: string, arnOf: (name: string) => string): string[] {
  return [...new Set(ofType(s, type).map((r) => arnOf(pattern(r))))];
}

const allow = (Sid: string, Action: string[], Resource: string[], Condition?: Condition): Statement => ({
  Sid,
  Effect: 'Allow',
  Action,
  Resource,
  ...(Condition ? { Condition } : {}),
});

/**
 * The roles the stage creates, and what each is passed to. SST names every role `…Role-<random>`;
 * changing one needs the stage's boundary on it as well, which only the stage's roles carry, so
 * the grants that change roles name them all (`*Role-*`: never this role's own name) while those
 * that read, tag or pass a role name each.
 */
function roles(s: Synthesis) {
  const iamRole = (name: string) => `arn:aws:iam::${s.account}:role/${name}`;
  const assumedBy = (service: string) =>
    ofType(s, 'aws:iam/role:Role')
      .filter((r) => r.props.assumedBy === service)
      .map((r) => iamRole(pattern(r)));
  for (const role of ofType(s, 'aws:iam/role:Role')) {
    if (!String(role.name).match(/Role-[a-z]+$/)) throw new Error(`${role.name} is not named …Role-<random>`);
  }
  return {
    sst: [iamRole('*Role-*')],
    each: patterns(s, 'aws:iam/role:Role', iamRole),
    lambda: assumedBy('lambda.amazonaws.com'),
    scheduler: assumedBy('scheduler.amazonaws.com'),
    managedPolicies: [
      ...new Set(ofType(s, 'aws:iam/role:Role').flatMap((r) => r.props.managedPolicyArns as string[])),
    ],
  };
}

function iamStatements(s: Synthesis, boundary: string): Statement[] {
  const { sst, each, lambda, scheduler, managedPolicies } = roles(s);
  const bounded = { StringEquals: { 'iam:PermissionsBoundary': boundary } };
  return [
    allow(
      'RolesBounded',
      [
        'iam:CreateRole',
        'iam:DeleteRole',
        'iam:UpdateRole',
        'iam:UpdateAssumeRolePolicy',
        'iam:PutRolePolicy',
        'iam:DeleteRolePolicy',
        // Gives a role made before the boundary existed the boundary, and no other.
        'iam:PutRolePermissionsBoundary',
      ],
      sst,
      bounded,
    ),
    allow('RolesManagedPolicies', ['iam:AttachRolePolicy', 'iam:DetachRolePolicy'], sst, {
      StringEquals: { 'iam:PermissionsBoundary': boundary },
      ArnEquals: { 'iam:PolicyARN': managedPolicies },
    }),
    allow(
      'RolesRead',
      [
        'iam:GetRole',
        'iam:GetRolePolicy',
        'iam:ListRolePolicies',
        'iam:ListAttachedRolePolicies',
        'iam:ListInstanceProfilesForRole',
        'iam:TagRole',
        'iam:UntagRole',
      ],
      each,
    ),
    allow('PassFunctionRoles', ['iam:PassRole'], lambda, {
      StringEquals: { 'iam:PassedToService': 'lambda.amazonaws.com' },
    }),
    allow('PassScheduleRoles', ['iam:PassRole'], scheduler, {
      StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
    }),
  ];
}

function lambdaStatements(s: Synthesis): Statement[] {
  const functions = patterns(s, 'aws:lambda/function:Function', (name) =>
    arnIn(s, 'lambda', `function:${name}`),
  );
  const mappedFunctions = ofType(s, 'aws:lambda/eventSourceMapping:EventSourceMapping').map((m) => {
    const fn = s.resources.find((r) => r.arn === m.props.functionArn);
    if (!fn) throw new Error(`${m.logical} maps to no function of the stage`);
    return arnIn(s, 'lambda', `function:${pattern(fn)}`);
  });
  const mappings = arnIn(s, 'lambda', 'event-source-mapping:*');
  const vpc = ofType(s, 'aws:lambda/function:Function').some((f) => f.props.vpcConfig);
  return [
    allow(
      'Functions',
      [
        'lambda:CreateFunction',
        'lambda:DeleteFunction',
        'lambda:GetFunction',
        'lambda:GetFunctionConfiguration',
        'lambda:UpdateFunctionCode',
        'lambda:UpdateFunctionConfiguration',
        'lambda:ListVersionsByFunction',
        'lambda:GetFunctionCodeSigningConfig',
        'lambda:PutFunctionConcurrency',
        'lambda:DeleteFunctionConcurrency',
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
      functions,
    ),
    // Event source mappings are named by a UUID AWS gives them: scoped by the function they feed.
    allow(
      'EventSourceMappings',
      [
        'lambda:CreateEventSourceMapping',
        'lambda:GetEventSourceMapping',
        'lambda:UpdateEventSourceMapping',
        'lambda:DeleteEventSourceMapping',
      ],
      ['*', mappings],
      { ArnLike: { 'lambda:FunctionArn': [...new Set(mappedFunctions)] } },
    ),
    allow(
      'EventSourceMappingTags',
      ['lambda:TagResource', 'lambda:UntagResource', 'lambda:ListTags'],
      [mappings],
    ),
    allow('EventSourceMappingList', ['lambda:ListEventSourceMappings'], ['*']),
    // Lambda checks the subnets and security groups of a function in a VPC with the caller's rights.
    ...(vpc
      ? [
          allow(
            'FunctionNetwork',
            ['ec2:DescribeSubnets', 'ec2:DescribeSecurityGroups', 'ec2:DescribeVpcs'],
            ['*'],
          ),
        ]
      : []),
  ];
}

const arnIn = (s: Synthesis, service: string, resource: string, region = s.region) =>
  `arn:aws:${service}:${region}:${s.account}:${resource}`;

function logStatements(s: Synthesis): Statement[] {
  const groups = patterns(s, 'aws:cloudwatch/logGroup:LogGroup', (name) =>
    arnIn(s, 'logs', `log-group:${name}`),
  );
  return [
    allow(
      'LogGroups',
      [
        'logs:CreateLogGroup',
        'logs:DeleteLogGroup',
        'logs:PutRetentionPolicy',
        'logs:DeleteRetentionPolicy',
        'logs:TagResource',
        'logs:UntagResource',
        'logs:ListTagsForResource',
      ],
      // A pattern's `*` matches the `:*` some actions add to a log group's ARN.
      groups,
    ),
    // The HTTP API's access logs: API Gateway sets up their delivery with the caller's rights, on
    // actions AWS authorizes on no resource.
    allow(
      'ApiLogDelivery',
      [
        'logs:CreateLogDelivery',
        'logs:GetLogDelivery',
        'logs:UpdateLogDelivery',
        'logs:DeleteLogDelivery',
        'logs:ListLogDeliveries',
        'logs:PutResourcePolicy',
        'logs:DescribeResourcePolicies',
        'logs:DescribeLogGroups',
      ],
      ['*'],
    ),
  ];
}

function dataStatements(s: Synthesis): Statement[] {
  const topics = patterns(s, 'aws:sns/topic:Topic', (name) => arnIn(s, 'sns', name));
  return [
    allow(
      'Table',
      [
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
      patterns(s, 'aws:dynamodb/table:Table', (name) => arnIn(s, 'dynamodb', `table/${name}`)),
    ),
    allow(
      'Queues',
      [
        'sqs:CreateQueue',
        'sqs:DeleteQueue',
        'sqs:GetQueueAttributes',
        'sqs:SetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:TagQueue',
        'sqs:UntagQueue',
        'sqs:ListQueueTags',
      ],
      patterns(s, 'aws:sqs/queue:Queue', (name) => arnIn(s, 'sqs', name)),
    ),
    // The alarm topic and its mail subscription (subscription actions are authorized on the topic).
    allow(
      'AlarmTopic',
      [
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
      topics,
    ),
    allow(
      'Schedules',
      [
        'scheduler:CreateSchedule',
        'scheduler:UpdateSchedule',
        'scheduler:DeleteSchedule',
        'scheduler:GetSchedule',
      ],
      patterns(s, 'aws:scheduler/schedule:Schedule', (name) =>
        arnIn(s, 'scheduler', `schedule/default/${name}`),
      ),
    ),
    allow(
      'Alarms',
      [
        'cloudwatch:PutMetricAlarm',
        'cloudwatch:DeleteAlarms',
        'cloudwatch:DescribeAlarms',
        'cloudwatch:TagResource',
        'cloudwatch:UntagResource',
        'cloudwatch:ListTagsForResource',
      ],
      [arnIn(s, 'cloudwatch', `alarm:${alarmName(s.app.stage, '*')}`)],
    ),
  ];
}

/** The HTTP API (named by an id AWS gives it) and, with a `domain`, its certificate and DNS records. */
function apiStatements(s: Synthesis, settings: StageSettings): Statement[] {
  const apigateway = (path: string) => `arn:aws:apigateway:${s.region}::${path}`;
  const domain = settings.domain;
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((method) => `apigateway:${method}`);
  const api = allow('Api', methods, [
    apigateway('/apis'),
    apigateway('/apis/*'),
    apigateway('/tags/*'),
    ...(domain
      ? [
          apigateway('/domainnames'),
          apigateway(`/domainnames/${domain}`),
          apigateway(`/domainnames/${domain}/*`),
        ]
      : []),
  ]);
  if (!domain) return [api];
  return [
    api,
    // ForAllValues holds of a request without the key: Null makes each name the domain's.
    allow('DomainCertificateRequest', ['acm:RequestCertificate'], ['*'], {
      'ForAllValues:StringEquals': { 'acm:DomainNames': [domain] },
      Null: { 'acm:DomainNames': 'false' },
    }),
    allow(
      'DomainCertificate',
      [
        'acm:DescribeCertificate',
        'acm:DeleteCertificate',
        'acm:AddTagsToCertificate',
        'acm:ListTagsForCertificate',
      ],
      [arnIn(s, 'acm', 'certificate/*')],
    ),
    allow('DomainZones', ['route53:ListHostedZones'], ['*']),
    allow(
      'DomainZoneRead',
      ['route53:GetHostedZone', 'route53:ListResourceRecordSets'],
      ['arn:aws:route53:::hostedzone/*'],
    ),
    // The domain's alias and its certificate's validation record (`_<token>.<domain>`), nothing else.
    allow('DomainRecords', ['route53:ChangeResourceRecordSets'], ['arn:aws:route53:::hostedzone/*'], {
      'ForAllValues:StringLike': {
        'route53:ChangeResourceRecordSetsNormalizedRecordNames': [domain, `*.${domain}`],
      },
      Null: { 'route53:ChangeResourceRecordSetsNormalizedRecordNames': 'false' },
    }),
    allow('DomainChanges', ['route53:GetChange'], ['arn:aws:route53:::change/*']),
  ];
}

/**
 * Access entries on each of the stage's clusters, for the stage's own roles only, each role into
 * its own function's group (the API's role never into the worker's, which writes).
 */
function clusterStatements(s: Synthesis, settings: StageSettings): Statement[] {
  const byGroup = new Map<string, Set<string>>();
  for (const entry of ofType(s, 'aws:eks/accessEntry:AccessEntry')) {
    const role = s.resources.find((r) => r.arn === entry.props.principalArn);
    if (!role) throw new Error(`${entry.logical} names no role of the stage`);
    for (const group of entry.props.kubernetesGroups as string[]) {
      byGroup.set(group, (byGroup.get(group) ?? new Set()).add(pattern(role)));
    }
  }
  const rolePatterns = [...new Set([...byGroup.values()].flatMap((roles) => [...roles]))];
  const clusters = stageClusters(settings);
  const clusterArns = clusters.map((c) => arnIn(s, 'eks', `cluster/${c.eksClusterName}`, c.region));
  const roleArn = (role: string) => `arn:aws:iam::${s.account}:role/${role}`;
  return [
    ...[...byGroup].map(([group, roles]) =>
      allow(`ClusterAccessEntries${pascal(group)}`, ['eks:CreateAccessEntry'], clusterArns, {
        ArnLike: { 'eks:principalArn': [...roles].map(roleArn) },
        'ForAllValues:StringEquals': { 'eks:kubernetesGroups': [group] },
        Null: { 'eks:kubernetesGroups': 'false' },
        StringEquals: { 'eks:accessEntryType': 'STANDARD' },
      }),
    ),
    allow(
      'ClusterAccessEntriesManage',
      [
        'eks:DescribeAccessEntry',
        'eks:UpdateAccessEntry',
        'eks:DeleteAccessEntry',
        'eks:TagResource',
        'eks:UntagResource',
      ],
      clusters.flatMap((c) =>
        rolePatterns.map((role) =>
          arnIn(s, 'eks', `access-entry/${c.eksClusterName}/role/${s.account}/${role}/*`, c.region),
        ),
      ),
    ),
  ];
}

const pascal = (name: string) =>
  name.replace(/(^|[-_:])([a-zA-Z0-9])/g, (_, __, c: string) => c.toUpperCase());

/** SST's own: its bootstrap parameters, the stage's state, and the functions' code in the asset bucket. */
function sstStatements(s: Synthesis): Statement[] {
  const ssm = (name: string) => arnIn(s, 'ssm', `parameter${name}`);
  const stageState = `${s.app.name}/${s.app.stage}`;
  return [
    allow('Caller', ['sts:GetCallerIdentity'], ['*']),
    allow('SstBootstrap', ['ssm:GetParameter'], [ssm('/sst/bootstrap')]),
    allow('SstPassphrase', ['ssm:GetParameter', 'ssm:PutParameter'], [ssm(`/sst/passphrase/${stageState}`)]),
    allow('SstStateBucket', ['s3:ListBucket', 's3:GetBucketLocation'], ['arn:aws:s3:::sst-state-*']),
    // `<kind>/<app>/<stage>.json` and `<kind>/<app>/<stage>/…`: no other stage's state or secrets.
    allow(
      'SstState',
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      [`arn:aws:s3:::sst-state-*/*/${stageState}.json`, `arn:aws:s3:::sst-state-*/*/${stageState}/*`],
    ),
    allow(
      'SstFunctionCode',
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:GetObjectTagging', 's3:PutObjectTagging'],
      // Named by the component and a hash of the code, the same in every stage of the account.
      ['arn:aws:s3:::sst-asset-*/assets/*-code-*'],
    ),
  ];
}

/**
 * The deploy role's policy for a synthesized stage. `boundary` is the ARN every role it creates
 * must carry; the role itself (`self`) and the boundary are denied to it whatever else allows.
 */
function deployRolePolicy(s: Synthesis, settings: StageSettings): PolicyDocument {
  const self = `arn:aws:iam::${s.account}:role/${deployRoleName(s.app.stage)}`;
  const boundary = boundaryArn(s);
  return {
    Version: '2012-10-17',
    Statement: [
      ...sstStatements(s),
      ...iamStatements(s, boundary),
      ...lambdaStatements(s),
      ...logStatements(s),
      ...dataStatements(s),
      ...apiStatements(s, settings),
      ...clusterStatements(s, settings),
      // Its own role, its own policies and the boundary: whatever the above allows.
      {
        Sid: 'NotItself',
        Effect: 'Deny',
        Action: ['iam:*'],
        Resource: [self, `${self.replace(':role/', ':policy/')}-*`, boundary],
      },
    ],
  };
}

const boundaryArn = (s: Synthesis) =>
  `arn:aws:iam::${s.account}:policy/${permissionsBoundaryName(s.app.stage)}`;

/**
 * The permissions boundary of the stage's roles: the most any of them may ever do, whatever policy
 * the deploy gives it — the stage's own table, queues and functions, the stage's clusters and
 * message topics, its logs, tracing, and a VPC's network interfaces. infra/deploy-role.test.ts
 * checks it holds every permission the functions are given.
 */
export function permissionsBoundary(s: Synthesis, settings: StageSettings): PolicyDocument {
  const tables = patterns(s, 'aws:dynamodb/table:Table', (name) => arnIn(s, 'dynamodb', `table/${name}`));
  const queues = patterns(s, 'aws:sqs/queue:Queue', (name) => arnIn(s, 'sqs', name));
  const functions = patterns(s, 'aws:lambda/function:Function', (name) =>
    arnIn(s, 'lambda', `function:${name}`),
  );
  const logGroups = patterns(s, 'aws:cloudwatch/logGroup:LogGroup', (name) =>
    arnIn(s, 'logs', `log-group:${name}`),
  );
  const topics = settings.messageTopics.map((topic) => arnIn(s, 'sns', topic));
  const vpc = ofType(s, 'aws:lambda/function:Function').some((f) => f.props.vpcConfig);
  return {
    Version: '2012-10-17',
    Statement: [
      allow(
        'StageTable',
        ['dynamodb:*'],
        tables.flatMap((table) => [table, `${table}/index/*`]),
      ),
      allow('StageQueues', ['sqs:*'], [...queues, arnIn(s, 'sqs', `${previewQueuePrefix(s.app.stage)}*`)]),
      allow('ListQueuesAndTopics', ['sqs:ListQueues', 'sns:ListTopics'], ['*']),
      ...(topics.length > 0
        ? [
            allow(
              'MessageTopics',
              [
                'sns:Subscribe',
                'sns:Unsubscribe',
                'sns:GetSubscriptionAttributes',
                'sns:SetSubscriptionAttributes',
                'sns:ListSubscriptionsByTopic',
                'sns:GetTopicAttributes',
              ],
              topics,
            ),
          ]
        : []),
      allow(
        'StageClusters',
        ['eks:DescribeCluster'],
        stageClusters(settings).map((c) => arnIn(s, 'eks', `cluster/${c.eksClusterName}`, c.region)),
      ),
      allow('InvokeStageFunctions', ['lambda:InvokeFunction'], functions),
      allow('FunctionLogs', ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'], logGroups),
      allow('Tracing', ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], ['*']),
      ...(vpc
        ? [
            allow(
              'FunctionNetwork',
              [
                'ec2:CreateNetworkInterface',
                'ec2:DescribeNetworkInterfaces',
                'ec2:DescribeSubnets',
                'ec2:DeleteNetworkInterface',
                'ec2:AssignPrivateIpAddresses',
                'ec2:UnassignPrivateIpAddresses',
              ],
              ['*'],
            ),
          ]
        : []),
    ],
  };
}

export interface DeployRoleInput {
  accountId: string;
  repository: string;
  stage: string;
  settings: StageSettings;
  /** The GitHub environment whose jobs may assume it; default the stage's name. */
  environment?: string;
}

/** Everything `npm run ci-role` prints for one stage. */
export function deployRole(input: DeployRoleInput) {
  const synthesis = synthesize(input.stage, input.settings, input.accountId);
  return {
    role: {
      name: deployRoleName(input.stage),
      trust: deployRoleTrust({
        accountId: input.accountId,
        repository: input.repository,
        environment: input.environment ?? input.stage,
      }),
      policies: managedPolicies(input.stage, deployRolePolicy(synthesis, input.settings)),
    },
    boundary: {
      name: permissionsBoundaryName(input.stage),
      policy: permissionsBoundary(synthesis, input.settings),
    },
  };
}

/** Every action the deploy role's policies allow, sorted: the list docs/deploy.md shows. */
export function deployRoleActions(policies: { policy: PolicyDocument }[]): string[] {
  return [
    ...new Set(
      policies.flatMap(({ policy }) =>
        policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action),
      ),
    ),
  ].sort();
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
      'usage: npm run -s ci-role -- --repository <owner>/<repo> --account <id> --stage <stage> [--environment <github environment>]',
    );
    process.exit(2);
  }
  const { default: settings } = (await import(`../stacks/${values.stage}.ts`)) as { default: StageSettings };
  const problems = deployProblems(values.stage, settings);
  if (problems.length > 0) {
    console.error(`stage "${values.stage}" cannot be deployed: ${problems.join('; ')}`);
    process.exit(1);
  }
  const role = deployRole({
    accountId: values.account,
    repository: values.repository,
    stage: values.stage,
    settings,
    ...(values.environment ? { environment: values.environment } : {}),
  });
  console.log(JSON.stringify(role, null, 2));
}
