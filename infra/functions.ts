import type { StageSettings } from '../stacks/schema.ts';
import {
  apiTimeout,
  deployedBuild,
  functionEnvironment,
  lambdaRuntime,
  scheduleArgs,
  workerSubscription,
  workerTimeout,
} from './settings.ts';

interface Resources {
  table: sst.aws.Dynamo;
  jobs: sst.aws.Queue;
  deadLetter: sst.aws.Queue;
}

/** API behind API Gateway, the public webhook on a function URL, the worker on the queue and the schedules. */
export function functions(settings: StageSettings, { table, jobs, deadLetter }: Resources) {
  // The GitHub App's secrets (docs/forge.md): set with `sst secret set`, stored encrypted by SST,
  // handed to the functions as environment variables and parsed once at start.
  const forgeSecrets = {
    FORGE_APP_ID: new sst.Secret('ForgeAppId', ''),
    FORGE_PRIVATE_KEY: new sst.Secret('ForgePrivateKey', ''),
    FORGE_WEBHOOK_SECRET: new sst.Secret('ForgeWebhookSecret', ''),
    FORGE_WEBHOOK_SECRET_PREVIOUS: new sst.Secret('ForgeWebhookSecretPrevious', ''),
  };
  const environment = {
    ...functionEnvironment(
      settings,
      { tableName: table.name, jobQueueUrl: jobs.url },
      deployedBuild(process.env),
    ),
    ...Object.fromEntries(Object.entries(forgeSecrets).map(([name, secret]) => [name, secret.value])),
  };
  const common = {
    runtime: lambdaRuntime,
    architecture: 'arm64',
    link: [table, jobs, deadLetter],
    environment,
    permissions: [{ actions: ['eks:DescribeCluster'], resources: ['*'] }],
  } as const;

  const apiFunction = new sst.aws.Function('ApiFunction', {
    ...common,
    handler: 'packages/api/src/lambda.handler',
    timeout: apiTimeout,
  });
  const api = new sst.aws.ApiGatewayV2('Api');
  api.route('$default', apiFunction.arn);

  const webhook = new sst.aws.Function('Webhook', {
    ...common,
    handler: 'packages/api/src/webhook-lambda.handler',
    timeout: apiTimeout,
    url: true,
  });

  const worker = new sst.aws.Function('Worker', {
    ...common,
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

  return { api, webhook, worker };
}
