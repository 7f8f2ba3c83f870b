/**
 * Recording stand-ins for the SST globals sst.config.ts and infra/ use, for infra/wiring.test.ts:
 * SST cannot run offline (it downloads Pulumi), so the test loads the real config with these in
 * its place and asserts what was declared. Each stand-in refuses an argument its SST 4.17 (or
 * Pulumi AWS) counterpart does not accept, so a misspelt name fails here instead of being ignored
 * at deploy. Deploy-time values (ARNs, URLs, names, secret values) are plain strings derived from
 * the component's name, so assertions can say which resource a value came from.
 */

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

const account = '123456789012';

/**
 * Puts the stand-ins on `globalThis` for one stage; `declared` fills as the config runs. The
 * region is the one the config's `app()` gave its AWS provider (set it before `run()`).
 */
export function installSstStandIns(stage: string) {
  const declared: Declared[] = [];
  const state = { region: 'unset-region' };
  const arn = (service: string, resource: string) =>
    `arn:aws:${service}:${state.region}:${account}:${resource}`;
  const declare = (type: string, name: string, args: unknown) => {
    check(type, args);
    declared.push({ type, name, args: (args ?? {}) as Record<string, unknown> });
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
      for (const permission of (args.permissions as unknown[] | undefined) ?? []) {
        check('sst.aws.Function.permissions', permission);
      }
      this.arn = arn('lambda', `function:${name}`);
      this.name = `${name}-function-name`;
      this.url = args.url ? `https://${name.toLowerCase()}.lambda-url.${state.region}.on.aws/` : '';
      this.nodes = { role: { arn: `arn:aws:iam::${account}:role/${name}Role`, name: `${name}Role` } };
    }
  }
  class Queue {
    readonly name: string;
    readonly arn: string;
    readonly url: string;
    readonly nodes: { queue: { name: string } };
    constructor(name: string, args: Record<string, unknown> = {}) {
      declare('sst.aws.Queue', name, args);
      this.name = name;
      this.arn = arn('sqs', name);
      this.url = `https://sqs.${state.region}.amazonaws.com/${account}/${name}`;
      this.nodes = { queue: { name: `${name}-queue-name` } };
    }
    subscribe(subscriber: string, args: Record<string, unknown> = {}) {
      check('sst.aws.Queue.subscribe', args);
      check('sst.aws.Queue.subscribe.transform', args.transform);
      declared.push({ type: 'sst.aws.Queue.subscribe', name: this.name, args: { ...args, subscriber } });
    }
  }
  class Dynamo {
    readonly arn: string;
    readonly name: string;
    constructor(name: string, args: Record<string, unknown>) {
      declare('sst.aws.Dynamo', name, args);
      this.arn = arn('dynamodb', `table/${name}`);
      this.name = `${name}-table-name`;
    }
  }
  class ApiGatewayV2 {
    readonly name: string;
    readonly url: string;
    readonly nodes: { api: { id: string } };
    constructor(name: string, args: Record<string, unknown> = {}) {
      declare('sst.aws.ApiGatewayV2', name, args);
      this.name = name;
      this.url = `https://${name.toLowerCase()}.execute-api.${state.region}.amazonaws.com`;
      this.nodes = { api: { id: `${name}-api-id` } };
    }
    route(route: string, handler: string, args: Record<string, unknown> = {}) {
      check('sst.aws.ApiGatewayV2.route', args);
      declared.push({
        type: 'sst.aws.ApiGatewayV2.route',
        name: this.name,
        args: { ...args, route, handler },
      });
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
  const recorder = (type: string, service: string) =>
    class {
      readonly arn: string;
      constructor(name: string, args: Record<string, unknown> = {}) {
        declare(type, name, args);
        this.arn = arn(service, name);
      }
    };
  class MetricAlarm {
    constructor(name: string, args: Record<string, unknown>) {
      declare('aws.cloudwatch.MetricAlarm', name, args);
      for (const query of (args.metricQueries as Record<string, unknown>[] | undefined) ?? []) {
        check('aws.cloudwatch.MetricAlarm.metricQueries', query);
        check('aws.cloudwatch.MetricAlarm.metricQueries.metric', query.metric);
      }
    }
  }

  const globals: Record<string, unknown> = {
    $config: <T>(input: T) => input,
    $app: { name: 'preview-composition', stage },
    $interpolate: (strings: TemplateStringsArray, ...values: unknown[]) =>
      strings.reduce((text, part, i) => text + part + (i < values.length ? String(values[i]) : ''), ''),
    sst: {
      Secret,
      aws: {
        Function: LambdaFunction,
        Queue,
        Dynamo,
        ApiGatewayV2,
        CronV2: recorder('sst.aws.CronV2', 'scheduler'),
        SnsTopic: recorder('sst.aws.SnsTopic', 'sns'),
      },
    },
    aws: {
      getCallerIdentityOutput: () => ({ accountId: account }),
      getPartitionOutput: () => ({ partition: 'aws' }),
      eks: { AccessEntry: recorder('aws.eks.AccessEntry', 'eks') },
      sns: { TopicSubscription: recorder('aws.sns.TopicSubscription', 'sns') },
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
    restore() {
      Object.assign(globalThis, previous);
    },
  };
}
