import type { StageSettings } from '../stacks/schema.ts';
import {
  accessEntries,
  apiArgs,
  apiTimeout,
  bundling,
  deployedBuild,
  type FunctionName,
  functionEnvironments,
  functionPermissions,
  functionSecrets,
  lambdaRuntime,
  permissionsBoundaryName,
  previewQueuePrefix,
  publicOrigin,
  scheduleArgs,
  scheduledEventMaximumAgeSeconds,
  scheduledRetries,
  stageClusters,
  workerSubscription,
  workerTimeout,
} from './settings.ts';

interface Resources {
  table: sst.aws.Dynamo;
  jobs: sst.aws.Queue;
  deadLetter: sst.aws.Queue;
}

/**
 * The API behind API Gateway, the public webhook on a function URL of its own, the worker on the
 * queue and the schedules; each with its own role and only the permissions it uses. Only secrets
 * are `link`ed (SST encrypts them into the function's package; their links carry no permission):
 * SST's links of the table and queues would grant `dynamodb:*` and `sqs:*`. The API's and the
 * worker's roles get an EKS access entry on each of the stage's clusters in the Kubernetes group
 * deploy/kubernetes binds, and run in the stage's VPC when it names one (a private cluster endpoint).
 */
export function functions(settings: StageSettings, { table, jobs, deadLetter }: Resources) {
  const { accountId } = aws.getCallerIdentityOutput();
  const { partition } = aws.getPartitionOutput();
  const arn = (service: string, resource: string, region: string = settings.region) =>
    $interpolate`arn:${partition}:${service}:${region}:${accountId}:${resource}`;
  const topics = settings.messageTopics.map((topic) => arn('sns', topic));
  const permissions = functionPermissions({
    table: table.arn,
    tableIndexes: $interpolate`${table.arn}/index/*`,
    jobs: jobs.arn,
    deadLetter: deadLetter.arn,
    clusters: stageClusters(settings).map((c) => arn('eks', `cluster/${c.eksClusterName}`, c.region)),
    previewQueues: arn('sqs', `${previewQueuePrefix($app.stage)}*`),
    topics,
  });
  const api = new sst.aws.ApiGatewayV2('Api', apiArgs(settings));
  const environments = functionEnvironments(
    settings,
    {
      tableName: table.name,
      jobQueueUrl: jobs.url,
      deadLetterQueueUrl: deadLetter.url,
      publicOrigin: publicOrigin(settings) ?? api.url,
    },
    deployedBuild(process.env),
    $app.stage,
    $jsonStringify,
  );
  const linked = linkedSecrets(settings);
  // Every role the deploy creates is bounded (infra/ci-role.ts): the deploy role may create no other.
  const bounded = { permissionsBoundary: arn('iam', `policy/${permissionsBoundaryName($app.stage)}`, '') };

  const lambda = (
    id: string,
    name: FunctionName,
    args: Pick<SstFunctionArgs, 'handler' | 'timeout' | 'url' | 'retries' | 'vpc' | 'concurrency'>,
    transform: SstFunctionArgs['transform'] = {},
  ) =>
    new sst.aws.Function(id, {
      ...args,
      runtime: lambdaRuntime,
      architecture: 'arm64',
      environment: environments[name],
      link: linked[name],
      permissions: permissions[name],
      logging: { format: 'json' },
      nodejs: { minify: true, ...bundling[name] },
      transform: { function: { tracingConfig: { mode: 'Active' } }, role: bounded, ...transform },
    });
  const vpc = settings.vpc ? { vpc: settings.vpc } : {};

  const apiFunction = lambda('ApiFunction', 'api', {
    handler: 'packages/api/src/entries/lambda.handler',
    timeout: apiTimeout,
    ...vpc,
  });
  api.route('$default', apiFunction.arn);
  // A route of its own, so the API's per-route metrics leave /healthz out of the 5xx alarm (infra/alarms.ts).
  api.route('GET /healthz', apiFunction.arn);

  const webhook = lambda('Webhook', 'webhook', {
    handler: 'packages/api/src/entries/webhook-lambda.handler',
    timeout: apiTimeout,
    // GitHub posts server to server: no browser is answered.
    url: { cors: false },
    concurrency: { reserved: settings.webhookConcurrency },
  });

  const worker = lambda(
    'Worker',
    'worker',
    {
      handler: 'packages/worker/src/lambda.handler',
      timeout: workerTimeout,
      retries: scheduledRetries.function,
      ...vpc,
    },
    { eventInvokeConfig: { maximumEventAgeInSeconds: scheduledEventMaximumAgeSeconds } },
  );
  jobs.subscribe(worker.arn, workerSubscription(settings));

  for (const schedule of scheduleArgs()) {
    new sst.aws.CronV2(schedule.id, {
      schedule: schedule.schedule,
      function: worker.arn,
      event: schedule.event,
      retries: scheduledRetries.schedule,
      transform: { role: bounded },
    });
  }

  const byName = { api: apiFunction, worker, webhook } satisfies Record<FunctionName, sst.aws.Function>;
  for (const { id, client, ...entry } of accessEntries(settings)) {
    new aws.eks.AccessEntry(id, {
      ...entry,
      principalArn: byName[client].nodes.role.arn,
      type: 'STANDARD',
    });
  }

  return { api, apiFunction, webhook, worker };
}

/** One Secret component per secret, linked to the functions that read it. */
function linkedSecrets(settings: StageSettings): Record<FunctionName, sst.Secret[]> {
  const secrets = new Map<string, sst.Secret>();
  const secret = (name: string, placeholder: string | undefined) => {
    const existing = secrets.get(name);
    if (existing) return existing;
    // Required ones (no placeholder) are set once per stage: npx sst secret set <name> … --stage <stage>
    const created = new sst.Secret(name, placeholder);
    secrets.set(name, created);
    return created;
  };
  const variables = functionSecrets(settings);
  const of = (name: FunctionName) =>
    Object.values(variables[name]).map(({ secret: id, placeholder }) => secret(id, placeholder));
  return { api: of('api'), worker: of('worker'), webhook: of('webhook') };
}
