import type { StageSettings } from '../stacks/schema.ts';
import {
  apiTimeout,
  bundling,
  clusterClients,
  clusterGroup,
  deployedBuild,
  type FunctionName,
  functionEnvironments,
  functionPermissions,
  functionSecrets,
  lambdaRuntime,
  scheduleArgs,
  workerSubscription,
  workerTimeout,
} from './settings.ts';

interface Resources {
  table: sst.aws.Dynamo;
  jobs: sst.aws.Queue;
}

/**
 * The API behind API Gateway, the public webhook on a function URL of its own, the worker on the
 * queue and the schedules; each with its own role and only the permissions it uses (nothing is
 * `link`ed: SST's links grant `dynamodb:*` and `sqs:*`). The API's and the worker's roles get an
 * EKS access entry in the Kubernetes group deploy/kubernetes binds.
 */
export function functions(settings: StageSettings, { table, jobs }: Resources) {
  const { accountId } = aws.getCallerIdentityOutput();
  const { partition } = aws.getPartitionOutput();
  const arn = (service: string, resource: string) =>
    $interpolate`arn:${partition}:${service}:${settings.region}:${accountId}:${resource}`;
  const permissions = functionPermissions({
    table: table.arn,
    tableIndexes: $interpolate`${table.arn}/index/*`,
    jobs: jobs.arn,
    cluster: arn('eks', `cluster/${settings.eksClusterName}`),
    previewQueues: arn('sqs', 'preview-*'),
    topics: settings.messageTopics.map((topic) => arn('sns', topic)),
  });

  // Set once per stage: npx sst secret set CursorKey "$(openssl rand -base64 48)" --stage <stage>
  const cursorKey = new sst.Secret('CursorKey');
  const environments = functionEnvironments(
    settings,
    { tableName: table.name, jobQueueUrl: jobs.url },
    deployedBuild(process.env),
    cursorKey.value,
  );
  // One Secret component per secret, however many functions read it.
  const secrets = new Map<string, sst.Secret>();
  const secret = (name: string, placeholder: string | undefined) => {
    const existing = secrets.get(name);
    if (existing) return existing;
    const created = new sst.Secret(name, placeholder);
    secrets.set(name, created);
    return created;
  };
  const secretValues = (name: FunctionName) =>
    Object.fromEntries(
      Object.entries(functionSecrets(settings)[name]).map(([variable, { secret: id, placeholder }]) => [
        variable,
        secret(id, placeholder).value,
      ]),
    );

  const lambda = (
    id: string,
    name: FunctionName,
    args: Pick<SstFunctionArgs, 'handler' | 'timeout' | 'url'>,
  ) =>
    new sst.aws.Function(id, {
      ...args,
      runtime: lambdaRuntime,
      architecture: 'arm64',
      environment: { ...environments[name], ...secretValues(name) },
      permissions: permissions[name],
      logging: { format: 'json' },
      nodejs: { minify: true, ...bundling[name] },
      transform: { function: { tracingConfig: { mode: 'Active' } } },
    });

  const apiFunction = lambda('ApiFunction', 'api', {
    handler: 'packages/api/src/lambda.handler',
    timeout: apiTimeout,
  });
  const api = new sst.aws.ApiGatewayV2('Api');
  api.route('$default', apiFunction.arn);

  const webhook = lambda('Webhook', 'webhook', {
    handler: 'packages/api/src/webhook-lambda.handler',
    timeout: apiTimeout,
    url: true,
  });

  const worker = lambda('Worker', 'worker', {
    handler: 'packages/worker/src/lambda.handler',
    timeout: workerTimeout,
  });
  jobs.subscribe(worker.arn, workerSubscription);

  for (const schedule of scheduleArgs()) {
    new sst.aws.CronV2(schedule.id, {
      schedule: schedule.schedule,
      function: worker.arn,
      event: schedule.event,
    });
  }

  const byName = { api: apiFunction, worker, webhook } satisfies Record<FunctionName, sst.aws.Function>;
  for (const name of clusterClients) {
    new aws.eks.AccessEntry(`${name[0]?.toUpperCase()}${name.slice(1)}ClusterAccess`, {
      clusterName: settings.eksClusterName,
      principalArn: byName[name].nodes.role.arn,
      kubernetesGroups: [clusterGroup],
      type: 'STANDARD',
    });
  }

  return { api, apiFunction, webhook, worker };
}
