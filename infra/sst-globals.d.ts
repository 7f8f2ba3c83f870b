/**
 * The SST 4.17 globals infra/ uses, typed with the argument names of SST's own components
 * (platform/src/components/aws/*.ts: FunctionArgs, QueueArgs, DynamoArgs, ApiGatewayV2Args,
 * CronV2Args, SnsTopicArgs) and of the Pulumi AWS resources it declares directly. SST generates
 * the complete types in `.sst/platform` when it installs, which cannot happen offline; these let
 * `npm run typecheck` check infra/ and the recording stand-ins (infra/sst-stand-ins.ts) check
 * the same names at run time. Values SST computes at deploy are opaque `Output`s: they can be
 * passed on or interpolated, never read.
 */

declare namespace $util {
  interface Output<T> {
    readonly __output: T;
  }
  type Input<T> = T | Output<T>;
}

type SstInput<T> = $util.Input<T>;
type SstOutput<T> = $util.Output<T>;

interface SstPermission {
  effect?: 'allow' | 'deny';
  actions: string[];
  resources: SstInput<SstInput<string>[]>;
}

interface SstFunctionArgs {
  handler: SstInput<string>;
  runtime?: SstInput<'nodejs24.x'>;
  architecture?: SstInput<'x86_64' | 'arm64'>;
  timeout?: SstInput<string>;
  memory?: SstInput<string>;
  environment?: SstInput<Record<string, SstInput<string>>>;
  permissions?: SstInput<SstPermission[]>;
  /** SST's `cors` defaults to every origin; `false` leaves the answer's CORS headers to the function. */
  url?: SstInput<boolean | { cors?: SstInput<boolean> }>;
  /** Retries of asynchronous invocations (the schedules'), 0–2; SST's default is 2. */
  retries?: SstInput<number>;
  vpc?: SstInput<{ privateSubnets: SstInput<string>[]; securityGroups: SstInput<string>[] }>;
  link?: SstInput<unknown[]>;
  logging?: SstInput<false | { retention?: SstInput<string>; format?: SstInput<'text' | 'json'> }>;
  nodejs?: SstInput<{
    minify?: SstInput<boolean>;
    splitting?: SstInput<boolean>;
    format?: 'esm' | 'cjs';
    /** Packages installed beside the bundle, at these versions (SST 4.17 takes a record). */
    install?: SstInput<Record<string, string>>;
  }>;
  /** `reserved`: Lambda reserved concurrency. */
  concurrency?: SstInput<{ reserved?: SstInput<number> }>;
  transform?: {
    function?: Record<string, unknown> | ((args: Record<string, unknown>) => void);
    role?: SstRoleTransform;
    eventInvokeConfig?: { maximumEventAgeInSeconds?: SstInput<number> };
  };
}

/** What the components' `transform.role` sets here (Pulumi `aws.iam.RoleArgs`). */
interface SstRoleTransform {
  permissionsBoundary?: SstInput<string>;
}

interface SstRole {
  readonly arn: SstOutput<string>;
  readonly name: SstOutput<string>;
}

declare namespace sst {
  class Secret {
    constructor(name: string, placeholder?: SstInput<string>);
    readonly value: SstOutput<string>;
  }
  namespace aws {
    // biome-ignore lint/suspicious/noShadowRestrictedNames: SST's component is sst.aws.Function.
    class Function {
      constructor(name: string, args: SstFunctionArgs);
      readonly arn: SstOutput<string>;
      readonly name: SstOutput<string>;
      readonly url: SstOutput<string>;
      readonly nodes: { readonly role: SstRole };
    }
    class Dynamo {
      constructor(
        name: string,
        args: {
          fields: Record<string, 'string' | 'number' | 'binary'>;
          primaryIndex: { hashKey: string; rangeKey?: string };
          globalIndexes?: Record<string, { hashKey: string; rangeKey?: string }>;
          ttl?: string;
          deletionProtection?: SstInput<boolean>;
          transform?: { table?: (args: Record<string, unknown>) => void };
        },
      );
      readonly arn: SstOutput<string>;
      readonly name: SstOutput<string>;
    }
    class Queue {
      constructor(
        name: string,
        args?: {
          visibilityTimeout?: SstInput<string>;
          dlq?: SstInput<string | { queue: SstInput<string>; retry?: SstInput<number> }>;
          transform?: { queue?: Record<string, unknown> };
        },
      );
      readonly arn: SstOutput<string>;
      readonly url: SstOutput<string>;
      readonly nodes: { readonly queue: { readonly name: SstOutput<string> } };
      subscribe(
        subscriber: SstInput<string>,
        args?: {
          batch?: { size?: number; window?: string; partialResponses?: boolean };
          transform?: { eventSourceMapping?: { scalingConfig?: { maximumConcurrency?: number } } };
        },
      ): unknown;
    }
    class ApiGatewayV2 {
      constructor(
        name: string,
        args?: {
          accessLog?: { retention?: SstInput<string> };
          cors?: SstInput<boolean>;
          /** A domain of a Route 53 hosted zone of the account: SST makes its certificate and alias record. */
          domain?: SstInput<string>;
          transform?: {
            stage?: {
              defaultRouteSettings?: {
                throttlingRateLimit?: SstInput<number>;
                throttlingBurstLimit?: SstInput<number>;
                detailedMetricsEnabled?: SstInput<boolean>;
              };
            };
          };
        },
      );
      readonly url: SstOutput<string>;
      readonly nodes: { readonly api: { readonly id: SstOutput<string> } };
      route(route: string, handler: SstInput<string>): unknown;
    }
    class CronV2 {
      constructor(
        name: string,
        args: {
          schedule: SstInput<string>;
          function: SstInput<string>;
          event?: unknown;
          retries?: SstInput<number>;
          transform?: { role?: SstRoleTransform };
        },
      );
    }
    class SnsTopic {
      constructor(name: string, args?: { fifo?: SstInput<boolean> });
      readonly arn: SstOutput<string>;
    }
  }
}

/** The Pulumi AWS provider's resources and lookups (`@pulumi/aws`), as SST exposes them. */
declare namespace aws {
  function getCallerIdentityOutput(): { readonly accountId: SstOutput<string> };
  function getPartitionOutput(): { readonly partition: SstOutput<string> };
  namespace eks {
    class AccessEntry {
      constructor(
        name: string,
        args: {
          clusterName: SstInput<string>;
          principalArn: SstInput<string>;
          kubernetesGroups?: SstInput<SstInput<string>[]>;
          type?: SstInput<'STANDARD'>;
          /** Where the cluster is, when not the provider's region (Pulumi AWS 7's per-resource region). */
          region?: SstInput<string>;
        },
      );
    }
  }
  namespace sns {
    class TopicSubscription {
      constructor(
        name: string,
        args: { topic: SstInput<string>; protocol: SstInput<'email'>; endpoint: SstInput<string> },
      );
    }
  }
  namespace cloudwatch {
    interface MetricQuery {
      id: string;
      expression?: string;
      label?: string;
      returnData?: boolean;
      metric?: {
        namespace: string;
        metricName: string;
        dimensions?: Record<string, SstInput<string>>;
        period: number;
        stat: string;
      };
    }
    class MetricAlarm {
      constructor(
        name: string,
        args: {
          name?: SstInput<string>;
          alarmDescription?: SstInput<string>;
          comparisonOperator: SstInput<
            'GreaterThanOrEqualToThreshold' | 'GreaterThanThreshold' | 'LessThanThreshold'
          >;
          evaluationPeriods: SstInput<number>;
          datapointsToAlarm?: SstInput<number>;
          threshold?: SstInput<number>;
          namespace?: SstInput<string>;
          metricName?: SstInput<string>;
          dimensions?: SstInput<Record<string, SstInput<string>>>;
          period?: SstInput<number>;
          statistic?: SstInput<'Sum' | 'Maximum' | 'Average' | 'SampleCount'>;
          metricQueries?: SstInput<MetricQuery[]>;
          treatMissingData?: SstInput<'notBreaching' | 'breaching' | 'missing' | 'ignore'>;
          alarmActions?: SstInput<SstInput<string>[]>;
          okActions?: SstInput<SstInput<string>[]>;
        },
      );
    }
  }
}

/** JSON of a value holding deploy-time values, once they are known. */
declare function $jsonStringify(value: unknown): $util.Output<string>;
declare function $interpolate(strings: TemplateStringsArray, ...values: unknown[]): $util.Output<string>;
declare const $app: { readonly name: string; readonly stage: string };
declare function $config<T>(input: T): T;
