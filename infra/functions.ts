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
  // Set once per stage: npx sst secret set CursorKey "$(openssl rand -base64 48)" --stage <stage>
  const cursorKey = new sst.Secret('CursorKey');
  const environment = functionEnvironment(
    settings,
    { tableName: table.name, jobQueueUrl: jobs.url },
    deployedBuild(process.env),
    cursorKey.value,
  );
  // The mode's secrets never sit in the stage file: SST secrets, set with `sst secret set`.
  const secrets: Record<string, string | $util.Output<string>> = {
    ...(settings.authMode === 'shared-token'
      ? { AUTH_SHARED_TOKEN: new sst.Secret('AuthSharedToken').value }
      : {}),
    ...(settings.authMode === 'oidc' ? { OIDC_CLIENT_SECRET: new sst.Secret('OidcClientSecret').value } : {}),
    // The GitHub App's (docs/forge.md); empty until set, which leaves the forge unconfigured.
    FORGE_APP_ID: new sst.Secret('ForgeAppId', '').value,
    FORGE_PRIVATE_KEY: new sst.Secret('ForgePrivateKey', '').value,
    FORGE_WEBHOOK_SECRET: new sst.Secret('ForgeWebhookSecret', '').value,
    FORGE_WEBHOOK_SECRET_PREVIOUS: new sst.Secret('ForgeWebhookSecretPrevious', '').value,
  };
  const common = {
    runtime: lambdaRuntime,
    architecture: 'arm64',
    link: [table, jobs, deadLetter, cursorKey],
    environment: { ...environment, ...secrets },
    permissions: [{ actions: ['eks:DescribeCluster'], resources: ['*'] }],
  } as const;

  // The console reads htmx from its npm package when the app starts: keep the package beside the bundle.
  const apiBundle = { nodejs: { install: ['htmx.org'] } };
  const apiFunction = new sst.aws.Function('ApiFunction', {
    ...common,
    ...apiBundle,
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
