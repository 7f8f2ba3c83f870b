/**
 * Recording stand-ins for the SST globals sst.config.ts and infra/ use, for infra/wiring.test.ts:
 * SST cannot run offline (it downloads Pulumi), so the test loads the real config with these in
 * its place and asserts what was declared. Each stand-in refuses an argument its SST 4.17 (or
 * Pulumi AWS) counterpart does not accept, so a misspelt name fails here instead of being ignored
 * at deploy. Deploy-time values (ARNs, URLs, names, secret values) are plain strings derived from
 * the component's name, so assertions can say which resource a value came from.
 */

import { appName } from './settings.ts';
import {
  type AwsResource,
  apiResources,
  apiRouteResources,
  createSynthesis,
  cronResources,
  directResource,
  functionResources,
  queueResources,
  queueSubscriptionResources,
  type Synthesis,
  tableResources,
  topicResources,
} from './sst-resources.ts';

interface Declared {
  type: string;
  name: string;
  args: Record<string, unknown>;
}

/** Argument names from SST 4.17's platform/src/components/aws/*.ts and @pulumi/aws. */
const accepted: Record<string, readonly string[]> = {
  'sst.aws.Function': [
    'live',
    'dev',
    'retries',
    'name',
    'description',
    'runtime',
    'bundle',
    'handler',
    'timeout',
    'memory',
    'storage',
    'environment',
    'permissions',
    'policies',
    'link',
    'streaming',
    'injections',
    'logging',
    'architecture',
    'role',
    'url',
    'nodejs',
    'python',
    'copyFiles',
    'concurrency',
    'versioning',
    'layers',
    'volume',
    'tags',
    'vpc',
    'hook',
    'durable',
    'transform',
  ],
  'sst.aws.Function.nodejs': [
    'plugins',
    'loader',
    'install',
    'banner',
    'esbuild',
    'minify',
    'format',
    'sourcemap',
    'splitting',
  ],
  'sst.aws.Function.logging': ['retention', 'logGroup', 'format'],
  'sst.aws.Function.transform': ['function', 'role', 'logGroup', 'eventInvokeConfig'],
  'sst.aws.Function.permissions': ['effect', 'actions', 'resources', 'conditions'],
  'sst.aws.Queue': ['fifo', 'delay', 'visibilityTimeout', 'dlq', 'transform'],
  'sst.aws.Queue.subscribe': ['filters', 'batch', 'transform'],
  'sst.aws.Queue.subscribe.transform': ['function', 'eventSourceMapping'],
  'sst.aws.Dynamo': [
    'fields',
    'primaryIndex',
    'globalIndexes',
    'localIndexes',
    'stream',
    'ttl',
    'deletionProtection',
    'transform',
  ],
  'sst.aws.ApiGatewayV2': ['link', 'domain', 'cors', 'accessLog', 'vpc', 'transform'],
  'sst.aws.ApiGatewayV2.route': ['auth', 'name', 'transform'],
  'sst.aws.ApiGatewayV2.transform': ['api', 'stage', 'domainName', 'vpcLink', 'logGroup', 'route'],
  'sst.aws.CronV2.transform': ['schedule', 'role'],
  // The Pulumi arguments the transforms above set (@pulumi/aws RoleArgs, FunctionEventInvokeConfigArgs, StageArgs).
  'aws.iam.Role': [
    'assumeRolePolicy',
    'description',
    'forceDetachPolicies',
    'inlinePolicies',
    'managedPolicyArns',
    'maxSessionDuration',
    'name',
    'namePrefix',
    'path',
    'permissionsBoundary',
    'tags',
  ],
  'aws.lambda.FunctionEventInvokeConfig': [
    'destinationConfig',
    'functionName',
    'maximumEventAgeInSeconds',
    'maximumRetryAttempts',
    'qualifier',
    'region',
  ],
  'aws.apigatewayv2.Stage': [
    'accessLogSettings',
    'apiId',
    'autoDeploy',
    'clientCertificateId',
    'defaultRouteSettings',
    'deploymentId',
    'description',
    'name',
    'region',
    'routeSettings',
    'stageVariables',
    'tags',
  ],
  'aws.apigatewayv2.Stage.defaultRouteSettings': [
    'dataTraceEnabled',
    'detailedMetricsEnabled',
    'loggingLevel',
    'throttlingBurstLimit',
    'throttlingRateLimit',
  ],
  'sst.aws.CronV2': [
    'job',
    'function',
    'task',
    'event',
    'schedule',
    'timezone',
    'enabled',
    'retries',
    'dlq',
    'transform',
  ],
  'sst.aws.SnsTopic': ['fifo', 'transform'],
  'aws.eks.AccessEntry': [
    'clusterName',
    'kubernetesGroups',
    'principalArn',
    'region',
    'tags',
    'type',
    'userName',
  ],
  'aws.sns.TopicSubscription': [
    'confirmationTimeoutInMinutes',
    'deliveryPolicy',
    'endpoint',
    'endpointAutoConfirms',
    'filterPolicy',
    'filterPolicyScope',
    'protocol',
    'rawMessageDelivery',
    'redrivePolicy',
    'region',
    'replayPolicy',
    'subscriptionRoleArn',
    'topic',
  ],
  'aws.cloudwatch.MetricAlarm': [
    'actionsEnabled',
    'alarmActions',
    'alarmDescription',
    'comparisonOperator',
    'datapointsToAlarm',
    'dimensions',
    'evaluateLowSampleCountPercentiles',
    'evaluationPeriods',
    'extendedStatistic',
    'insufficientDataActions',
    'metricName',
    'metricQueries',
    'name',
    'namespace',
    'okActions',
    'period',
    'region',
    'statistic',
    'tags',
    'threshold',
    'thresholdMetricId',
    'treatMissingData',
    'unit',
  ],
  'aws.cloudwatch.MetricAlarm.metricQueries': [
    'accountId',
    'expression',
    'id',
    'label',
    'metric',
    'period',
    'returnData',
  ],
  'aws.cloudwatch.MetricAlarm.metricQueries.metric': [
    'dimensions',
    'metricName',
    'namespace',
    'period',
    'stat',
    'unit',
  ],
};

function check(type: string, args: unknown): void {
  const known = accepted[type];
  if (!known || typeof args !== 'object' || args === null) return;
  for (const key of Object.keys(args)) {
    if (!known.includes(key)) throw new Error(`${type} does not accept "${key}" (SST 4.17)`);
  }
}

/**
 * Puts the stand-ins on `globalThis` for one stage; `declared` fills as the config runs. The
 * region is the one the config's `app()` gave its AWS provider (set it before `run()`).
 */
export function installSstStandIns(stage: string, account = '123456789012') {
  const declared: Declared[] = [];
  const state = { region: 'unset-region' };
  const arn = (service: string, resource: string) =>
    `arn:aws:${service}:${state.region}:${account}:${resource}`;
  const declare = (type: string, name: string, args: unknown) => {
    check(type, args);
    declared.push({ type, name, args: (args ?? {}) as Record<string, unknown> });
  };
  // The AWS resources behind the components, once the config's app() has set the region.
  let synthesis: Synthesis | undefined;
  const synth = () => {
    synthesis ??= createSynthesis({ name: appName, stage }, account, state.region);
    return synthesis;
  };
  /**
   * The physical ARN behind a stand-in's output, or behind the output it starts (`<table>/index/*`),
   * or the value itself (an ARN the config wrote).
   */
  const physical = (value: unknown) => {
    const text = String(value);
    for (const [output, arn] of synth().physical) {
      if (text === output || text.startsWith(`${output}/`)) return arn + text.slice(output.length);
    }
    return text;
  };

  class LambdaFunction {
    readonly arn: string;
    readonly name: string;
    readonly url: string;
    readonly nodes: { role: { arn: string; name: string } };
    constructor(name: string, args: Record<string, unknown>) {
      declare('sst.aws.Function', name, args);
      check('sst.aws.Function.nodejs', args.nodejs);
      check('sst.aws.Function.logging', args.logging);
      check('sst.aws.Function.transform', args.transform);
      const transform = (args.transform ?? {}) as Record<string, unknown>;
      check('aws.iam.Role', transform.role);
      check('aws.lambda.FunctionEventInvokeConfig', transform.eventInvokeConfig);
      for (const permission of (args.permissions as unknown[] | undefined) ?? []) {
        check('sst.aws.Function.permissions', permission);
      }
      this.arn = arn('lambda', `function:${name}`);
      this.name = `${name}-function-name`;
      this.url = args.url ? `https://${name.toLowerCase()}.lambda-url.${state.region}.on.aws/` : '';
      this.nodes = { role: { arn: `arn:aws:iam::${account}:role/${name}Role`, name: `${name}Role` } };
      const { fn, role } = functionResources(synth(), name, args);
      synth().physical.set(this.arn, fn.arn);
      synth().physical.set(this.nodes.role.arn, role.arn);
      // What its role's inline policy grants, on the physical resources.
      role.props.permissions = (
        (args.permissions as { actions: string[]; resources: unknown[] }[]) ?? []
      ).map((p) => ({ actions: p.actions, resources: p.resources.map(physical) }));
    }
  }
  class Queue {
    readonly name: string;
    readonly arn: string;
    readonly url: string;
    readonly nodes: { queue: { name: string } };
    readonly #queue: AwsResource;
    constructor(name: string, args: Record<string, unknown> = {}) {
      declare('sst.aws.Queue', name, args);
      this.name = name;
      this.arn = arn('sqs', name);
      this.url = `https://sqs.${state.region}.amazonaws.com/${account}/${name}`;
      this.nodes = { queue: { name: `${name}-queue-name` } };
      this.#queue = queueResources(synth(), name, args);
      synth().physical.set(this.arn, this.#queue.arn);
    }
    subscribe(subscriber: string, args: Record<string, unknown> = {}) {
      check('sst.aws.Queue.subscribe', args);
      check('sst.aws.Queue.subscribe.transform', args.transform);
      declared.push({ type: 'sst.aws.Queue.subscribe', name: this.name, args: { ...args, subscriber } });
      queueSubscriptionResources(synth(), this.#queue, physical(subscriber), args);
    }
  }
  class Dynamo {
    readonly arn: string;
    readonly name: string;
    constructor(name: string, args: Record<string, unknown>) {
      declare('sst.aws.Dynamo', name, args);
      this.arn = arn('dynamodb', `table/${name}`);
      this.name = `${name}-table-name`;
      synth().physical.set(this.arn, tableResources(synth(), name).arn);
    }
  }
  class ApiGatewayV2 {
    readonly name: string;
    readonly url: string;
    readonly nodes: { api: { id: string } };
    readonly #api: AwsResource;
    constructor(name: string, args: Record<string, unknown> = {}) {
      declare('sst.aws.ApiGatewayV2', name, args);
      check('sst.aws.ApiGatewayV2.transform', args.transform);
      const stageArgs = (args.transform as { stage?: Record<string, unknown> } | undefined)?.stage;
      check('aws.apigatewayv2.Stage', stageArgs);
      check('aws.apigatewayv2.Stage.defaultRouteSettings', stageArgs?.defaultRouteSettings);
      this.name = name;
      this.url = `https://${name.toLowerCase()}.execute-api.${state.region}.amazonaws.com`;
      this.nodes = { api: { id: `${name}-api-id` } };
      this.#api = apiResources(synth(), name, args);
    }
    route(route: string, handler: string, args: Record<string, unknown> = {}) {
      check('sst.aws.ApiGatewayV2.route', args);
      declared.push({
        type: 'sst.aws.ApiGatewayV2.route',
        name: this.name,
        args: { ...args, route, handler },
      });
      apiRouteResources(synth(), this.#api, route, physical(handler));
    }
  }
  class Secret {
    readonly name: string;
    readonly value: string;
    constructor(name: string, placeholder?: string) {
      declared.push({ type: 'sst.Secret', name, args: placeholder === undefined ? {} : { placeholder } });
      this.name = name;
      this.value = `secret:${name}`;
    }
  }
  /** A component or resource whose stand-in has only an ARN; `create` adds what it makes. */
  const recorder = (
    type: string,
    service: string,
    create: (name: string, args: Record<string, unknown>) => AwsResource,
  ) =>
    class {
      readonly arn: string;
      constructor(name: string, args: Record<string, unknown> = {}) {
        declare(type, name, args);
        this.arn = arn(service, name);
        synth().physical.set(this.arn, create(name, args).arn);
      }
    };
  class MetricAlarm {
    constructor(name: string, args: Record<string, unknown>) {
      declare('aws.cloudwatch.MetricAlarm', name, args);
      for (const query of (args.metricQueries as Record<string, unknown>[] | undefined) ?? []) {
        check('aws.cloudwatch.MetricAlarm.metricQueries', query);
        check('aws.cloudwatch.MetricAlarm.metricQueries.metric', query.metric);
      }
      directResource(synth(), 'aws:cloudwatch/metricAlarm:MetricAlarm', name, args, (alarm, region) =>
        arnIn(region, 'cloudwatch', `alarm:${alarm}`),
      );
    }
  }
  const arnIn = (region: string, service: string, resource: string) =>
    `arn:aws:${service}:${region}:${account}:${resource}`;
  const cron = (name: string, args: Record<string, unknown>) => {
    check('sst.aws.CronV2.transform', args.transform);
    check('aws.iam.Role', (args.transform as { role?: unknown } | undefined)?.role);
    return cronResources(synth(), name, args, physical(args.function));
  };
  const accessEntry = (name: string, args: Record<string, unknown>) => {
    const principal = physical(args.principalArn);
    return directResource(
      synth(),
      'aws:eks/accessEntry:AccessEntry',
      name,
      { ...args, principalArn: principal },
      (_, region) =>
        arnIn(
          region,
          'eks',
          `access-entry/${args.clusterName}/role/${account}/${principal.split('/').at(-1)}/${name}`,
        ),
    );
  };
  const subscription = (name: string, args: Record<string, unknown>) => {
    const topic = physical(args.topic);
    return directResource(
      synth(),
      'aws:sns/topicSubscription:TopicSubscription',
      name,
      { ...args, topic },
      () => `${topic}:${name}`,
    );
  };

  const globals: Record<string, unknown> = {
    $config: <T>(input: T) => input,
    $app: { name: 'preview-composition', stage },
    $jsonStringify: (value: unknown) => JSON.stringify(value),
    $interpolate: (strings: TemplateStringsArray, ...values: unknown[]) =>
      strings.reduce((text, part, i) => text + part + (i < values.length ? String(values[i]) : ''), ''),
    sst: {
      Secret,
      aws: {
        Function: LambdaFunction,
        Queue,
        Dynamo,
        ApiGatewayV2,
        CronV2: recorder('sst.aws.CronV2', 'scheduler', cron),
        SnsTopic: recorder('sst.aws.SnsTopic', 'sns', (name) => topicResources(synth(), name)),
      },
    },
    aws: {
      getCallerIdentityOutput: () => ({ accountId: account }),
      getPartitionOutput: () => ({ partition: 'aws' }),
      eks: { AccessEntry: recorder('aws.eks.AccessEntry', 'eks', accessEntry) },
      sns: { TopicSubscription: recorder('aws.sns.TopicSubscription', 'sns', subscription) },
      cloudwatch: { MetricAlarm },
    },
  };
  const previous = Object.fromEntries(Object.keys(globals).map((key) => [key, Reflect.get(globalThis, key)]));
  Object.assign(globalThis, globals);
  return {
    declared,
    state,
    /** What was declared of one type, by component name. */
    of(type: string): Map<string, Record<string, unknown>> {
      return new Map(declared.filter((d) => d.type === type).map((d) => [d.name, d.args]));
    },
    /** Every AWS resource the declared components create (infra/sst-resources.ts). */
    synthesis: synth,
    restore() {
      Object.assign(globalThis, previous);
    },
  };
}
