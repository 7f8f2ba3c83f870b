/**
 * The AWS resources each SST 4.17.1 component creates, as its platform source
 * (platform/src/components/aws/*.ts at commit a0bd20f, see infra/sst-naming.ts) creates them: their
 * Pulumi types, logical and physical names, ARNs and tags, with the component's `transform`
 * applied. infra/sst-stand-ins.ts calls these as sst.config.ts declares each component, so the
 * resource list of a stage comes from the real infra files; the deploy role (infra/ci-role.ts) is
 * derived from it and infra/deploy-role.test.ts checks the role against it.
 */
import { createHash } from 'node:crypto';
import { physicalName, physicalNameLimits, physicalNamePrefix, type SstApp } from './sst-naming.ts';

/** One AWS resource of the stage. */
export interface AwsResource {
  /** The Pulumi type (component.ts's naming rules are keyed by it). */
  type: string;
  /** Its Pulumi logical name: the component's name and the part (`WorkerRole`). */
  logical: string;
  /** The name AWS knows it by, where it has one; its random part is a stand-in's. */
  name?: string;
  /** That name without SST's random part: what the deploy role's policy names. */
  namePrefix?: string;
  arn: string;
  region: string;
  /** What it is created with: the provider's default tags (`sst:app`, `sst:stage`) and its own. */
  tags: Record<string, string>;
  /** What the deploy's calls on it depend on: the ARNs it refers to, its transformed arguments. */
  props: Record<string, unknown>;
}

/** The deploy of one stage, as the stand-ins see it. */
export interface Synthesis {
  app: SstApp;
  account: string;
  region: string;
  /** SST's bootstrap buckets in the region (`sst-asset-<random>`, `sst-state-<random>`). */
  assetBucket: string;
  resources: AwsResource[];
  /** A stand-in's output (an ARN like `…:function:Worker`) → the physical resource's ARN. */
  physical: Map<string, string>;
}

/** A component's `transform.<part>`: merged over the arguments, or a function that edits them. */
type Transform = Record<string, unknown> | ((args: Record<string, unknown>) => void) | undefined;

function transformed(transform: Transform, args: Record<string, unknown>): Record<string, unknown> {
  if (typeof transform === 'function') {
    transform(args);
    return args;
  }
  return { ...args, ...transform };
}

/** A deterministic stand-in for SST's random part (its alphabet, `PRETTY_CHARS`). */
function random(seed: string, length = 8): string {
  const chars = 'abcdefhkmnorstuvwxz';
  return [...createHash('sha256').update(seed).digest().subarray(0, length)]
    .map((byte) => chars[byte % chars.length])
    .join('');
}

const uuid = (seed: string) =>
  createHash('sha256')
    .update(seed)
    .digest('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, '$1-$2-$3-$4-$5');

export function createSynthesis(app: SstApp, account: string, region: string): Synthesis {
  return {
    app,
    account,
    region,
    assetBucket: `sst-asset-${random(`${account}${region}asset`, 12)}`,
    resources: [],
    physical: new Map(),
  };
}

type Limited = keyof typeof physicalNameLimits;

function add(
  s: Synthesis,
  resource: Omit<AwsResource, 'region' | 'tags'> & { region?: string; tags?: Record<string, string> },
): AwsResource {
  const full: AwsResource = {
    ...resource,
    region: resource.region ?? s.region,
    tags: { 'sst:app': s.app.name, 'sst:stage': s.app.stage, ...resource.tags },
  };
  s.resources.push(full);
  return full;
}

/** A resource SST names by its naming rule (component.ts): `<prefixName>-<random><suffix>`. */
function named(s: Synthesis, type: Limited, logical: string, suffix = '') {
  return physicallyNamed(s, physicalNameLimits[type], logical, logical, suffix);
}

/** `physicalName(max, logical, suffix)`, its random part seeded by `seed`. */
function physicallyNamed(s: Synthesis, max: number, logical: string, seed: string, suffix = '') {
  return {
    name: physicalName(s.app, max, logical, random(seed), suffix),
    namePrefix: physicalNamePrefix(s.app, max, logical, suffix),
  };
}

const arn = (s: Synthesis, service: string, resource: string, region = s.region) =>
  `arn:aws:${service}:${region}:${s.account}:${resource}`;

function role(
  s: Synthesis,
  logical: string,
  assumedBy: string,
  transform: Transform,
  props: { managedPolicyArns: string[]; inlinePolicies: string[] },
): AwsResource {
  const args = transformed(transform, { ...props });
  const { name, namePrefix } = named(s, 'aws:iam/role:Role', logical);
  return add(s, {
    type: 'aws:iam/role:Role',
    logical,
    name,
    namePrefix,
    arn: `arn:aws:iam::${s.account}:role/${name}`,
    props: { ...args, assumedBy },
  });
}

/** A log group named `<path><physicalName(64, named)>` (function.ts, apigatewayv2.ts). */
function logGroup(s: Synthesis, logical: string, path: string, named: string): AwsResource {
  const { name, namePrefix } = physicallyNamed(s, 64, named, logical);
  return add(s, {
    type: 'aws:cloudwatch/logGroup:LogGroup',
    logical,
    name: `${path}${name}`,
    namePrefix: `${path}${namePrefix}`,
    arn: arn(s, 'logs', `log-group:${path}${name}`),
    props: {},
  });
}

/**
 * function.ts: its role (`${name}Role`, the inline policy `inline`, AWSLambdaBasicExecutionRole
 * while it logs, AWSLambdaVPCAccessExecutionRole in a VPC), its log group
 * (`/aws/lambda/${physicalName(64, `${name}Function`)}`), its code in the asset bucket
 * (`assets/${name}-code-<sha256>.zip`), the function, and its URL (with the two public
 * permissions), event invoke configuration (when `retries` is set) and reserved concurrency.
 */
export function functionResources(s: Synthesis, name: string, args: Record<string, unknown>) {
  const transform = (args.transform ?? {}) as Record<string, Transform>;
  const managed = (policy: string) => `arn:aws:iam::aws:policy/service-role/${policy}`;
  const fnRole = role(s, `${name}Role`, 'lambda.amazonaws.com', transform.role, {
    managedPolicyArns: [
      ...(args.logging === false ? [] : [managed('AWSLambdaBasicExecutionRole')]),
      ...(args.vpc ? [managed('AWSLambdaVPCAccessExecutionRole')] : []),
    ],
    inlinePolicies: ['inline'],
  });
  const logs =
    args.logging === false ? undefined : logGroup(s, `${name}LogGroup`, '/aws/lambda/', `${name}Function`);
  const code = `assets/${name}-code-${createHash('sha256').update(name).digest('hex')}.zip`;
  add(s, {
    type: 'aws:s3/bucketObjectv2:BucketObjectv2',
    logical: `${name}Code`,
    name: code,
    arn: `arn:aws:s3:::${s.assetBucket}/${code}`,
    props: {},
  });
  const concurrency = args.concurrency as { reserved?: number } | undefined;
  const fnArgs = transformed(transform.function, {
    ...(args.vpc ? { vpcConfig: args.vpc } : {}),
    ...(concurrency?.reserved === undefined ? {} : { reservedConcurrentExecutions: concurrency.reserved }),
  });
  const fnName = named(s, 'aws:lambda/function:Function', `${name}Function`);
  const fn = add(s, {
    type: 'aws:lambda/function:Function',
    logical: `${name}Function`,
    ...fnName,
    arn: arn(s, 'lambda', `function:${fnName.name}`),
    props: { ...fnArgs, role: fnRole.arn, logGroup: logs?.name },
  });
  const onFunction = (type: string, logical: string, props: Record<string, unknown> = {}) =>
    add(s, { type, logical, arn: fn.arn, props: { ...props, function: fn.arn } });
  if (args.url) {
    onFunction('aws:lambda/functionUrl:FunctionUrl', `${name}Url`);
    onFunction('aws:lambda/permission:Permission', `${name}PublicFunctionUrlAccess`, {
      action: 'lambda:InvokeFunctionUrl',
    });
    onFunction('aws:lambda/permission:Permission', `${name}PublicInvokeFunction`, {
      action: 'lambda:InvokeFunction',
    });
  }
  if (args.retries !== undefined) {
    onFunction(
      'aws:lambda/functionEventInvokeConfig:FunctionEventInvokeConfig',
      `${name}EventInvokeConfig`,
      transformed(transform.eventInvokeConfig, { maximumRetryAttempts: args.retries }),
    );
  }
  return { fn, role: fnRole };
}

/** queue.ts: the queue, `${name}Queue` (`.fifo` for a FIFO queue). */
export function queueResources(s: Synthesis, name: string, args: Record<string, unknown>): AwsResource {
  const fifo = Boolean(args.fifo);
  const queue = named(s, 'aws:sqs/queue:Queue', `${name}Queue`, fifo ? '.fifo' : '');
  return add(s, {
    type: 'aws:sqs/queue:Queue',
    logical: `${name}Queue`,
    ...queue,
    arn: arn(s, 'sqs', queue.name),
    props: {},
  });
}

/**
 * queue-lambda-subscriber.ts: a subscriber that is a function's ARN creates no function, only the
 * event source mapping (named by a UUID AWS gives it).
 */
export function queueSubscriptionResources(
  s: Synthesis,
  queue: AwsResource,
  functionArn: string,
  args: Record<string, unknown>,
): AwsResource {
  const transform = (args.transform ?? {}) as Record<string, Transform>;
  const logical = `${queue.logical}SubscriberEventSourceMapping`;
  return add(s, {
    type: 'aws:lambda/eventSourceMapping:EventSourceMapping',
    logical,
    arn: arn(s, 'lambda', `event-source-mapping:${uuid(logical)}`),
    props: transformed(transform.eventSourceMapping, { eventSourceArn: queue.arn, functionArn }),
  });
}

/** dynamo.ts: the table, `${name}Table`. */
export function tableResources(s: Synthesis, name: string): AwsResource {
  const table = named(s, 'aws:dynamodb/table:Table', `${name}Table`);
  return add(s, {
    type: 'aws:dynamodb/table:Table',
    logical: `${name}Table`,
    ...table,
    arn: arn(s, 'dynamodb', `table/${table.name}`),
    props: {},
  });
}

/** sns-topic.ts: the topic, `${name}Topic`. */
export function topicResources(s: Synthesis, name: string): AwsResource {
  const topic = named(s, 'aws:sns/topic:Topic', `${name}Topic`);
  return add(s, {
    type: 'aws:sns/topic:Topic',
    logical: `${name}Topic`,
    ...topic,
    arn: arn(s, 'sns', topic.name),
    props: {},
  });
}

/**
 * apigatewayv2.ts: the HTTP API, its access log group (`/aws/vendedlogs/apis/${physicalName(64, name)}`),
 * its `$default` stage logging to it, and with a `domain` the certificate, its validation records,
 * the custom domain and its alias record (dns.ts, dns-validated-certificate.ts).
 */
export function apiResources(s: Synthesis, name: string, args: Record<string, unknown>): AwsResource {
  const transform = (args.transform ?? {}) as Record<string, Transform>;
  const id = random(`${name}Api`, 10);
  const api = add(s, {
    type: 'aws:apigatewayv2/api:Api',
    logical: `${name}Api`,
    ...named(s, 'aws:apigatewayv2/api:Api', `${name}Api`),
    arn: `arn:aws:apigateway:${s.region}::/apis/${id}`,
    props: {},
  });
  const accessLog = logGroup(s, `${name}AccessLog`, '/aws/vendedlogs/apis/', name);
  add(s, {
    type: 'aws:apigatewayv2/stage:Stage',
    logical: `${name}Stage`,
    arn: `${api.arn}/stages/$default`,
    props: { ...transformed(transform.stage, {}), api: api.arn, accessLogGroup: accessLog.arn },
  });
  if (typeof args.domain === 'string') {
    const certificate = add(s, {
      type: 'aws:acm/certificate:Certificate',
      logical: `${name}SslCertificate`,
      arn: arn(s, 'acm', `certificate/${uuid(`${name}Ssl`)}`),
      props: { domainName: args.domain },
    });
    add(s, {
      type: 'aws:route53/record:Record',
      logical: `${name}SslRecord`,
      arn: 'arn:aws:route53:::hostedzone/ZSTANDINZONE01',
      tags: {},
      // ACM's DNS validation record.
      props: { name: `_${random(`${name}Ssl`, 12)}.${args.domain}` },
    });
    add(s, {
      type: 'aws:apigatewayv2/domainName:DomainName',
      logical: `${name}DomainName`,
      name: args.domain,
      arn: `arn:aws:apigateway:${s.region}::/domainnames/${args.domain}`,
      props: { certificate: certificate.arn },
    });
    add(s, {
      type: 'aws:route53/record:Record',
      logical: `${name}AliasRecord`,
      arn: 'arn:aws:route53:::hostedzone/ZSTANDINZONE01',
      tags: {},
      props: { name: args.domain },
    });
  }
  return api;
}

/** apigatewayv2-lambda-route.ts: the route's integration, its route, and API Gateway's permission to invoke. */
export function apiRouteResources(s: Synthesis, api: AwsResource, route: string, functionArn: string): void {
  const suffix = random(route, 6);
  add(s, {
    type: 'aws:apigatewayv2/integration:Integration',
    logical: `${api.logical}Route${suffix}Integration`,
    arn: `${api.arn}/integrations/${suffix}`,
    props: { function: functionArn },
  });
  add(s, {
    type: 'aws:apigatewayv2/route:Route',
    logical: `${api.logical}Route${suffix}`,
    arn: `${api.arn}/routes/${suffix}`,
    props: { route },
  });
  add(s, {
    type: 'aws:lambda/permission:Permission',
    logical: `${api.logical}Route${suffix}Permissions`,
    arn: functionArn,
    props: { function: functionArn, action: 'lambda:InvokeFunction', principal: 'apigateway.amazonaws.com' },
  });
}

/** cron-v2.ts: Scheduler's role (`${name}Role`, allowed to invoke the function) and the schedule (no tags: schedules have none). */
export function cronResources(
  s: Synthesis,
  name: string,
  args: Record<string, unknown>,
  functionArn: string,
) {
  const transform = (args.transform ?? {}) as Record<string, Transform>;
  const schedulerRole = role(s, `${name}Role`, 'scheduler.amazonaws.com', transform.role, {
    managedPolicyArns: [],
    inlinePolicies: ['inline'],
  });
  const schedule = named(s, 'aws:scheduler/schedule:Schedule', `${name}Schedule`);
  return add(s, {
    type: 'aws:scheduler/schedule:Schedule',
    logical: `${name}Schedule`,
    ...schedule,
    arn: arn(s, 'scheduler', `schedule/default/${schedule.name}`),
    tags: {},
    props: { role: schedulerRole.arn, function: functionArn },
  });
}

/** A Pulumi AWS resource declared directly: named as declared (`name`) or by Pulumi's auto-naming. */
export function directResource(
  s: Synthesis,
  type: string,
  logical: string,
  args: Record<string, unknown>,
  arnOf: (name: string, region: string) => string,
): AwsResource {
  const region = typeof args.region === 'string' ? args.region : s.region;
  const name = typeof args.name === 'string' ? args.name : `${logical}-${random(logical, 7)}`;
  return add(s, { type, logical, name, arn: arnOf(name, region), region, props: args });
}
