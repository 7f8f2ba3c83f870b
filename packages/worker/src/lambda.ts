/** AWS Lambda entry of the worker: the job queue's event source and the schedules' target. */
import { createSnsClient, embeddedMetricsSink, lambdaLog, snsSqsMessaging, stdoutLine } from '@svc/aws';
import { clusterFromSettings } from '@svc/kube';
import { settingsFromEnvironment, WorkerSettings, wireServices } from '@svc/wiring';
import { defaultWorkerSettings, type WorkerDeps } from './deps.ts';
import { lambdaHandler } from './lambda-handler.ts';
import { embeddedMetrics } from './metrics.ts';
import { httpProbe } from './prober.ts';
import { sweeps } from './sweeps.ts';

const settings = settingsFromEnvironment(WorkerSettings, process.env);
const metrics = embeddedMetricsSink('worker', process.env);
const services = wireServices(settings, {
  cluster: clusterFromSettings,
  messaging: (aws) => snsSqsMessaging({ sqs: aws.clients.sqs, sns: createSnsClient(aws.settings) }),
  log: lambdaLog('worker'),
  metrics,
});
const deps: WorkerDeps = {
  ...services,
  probe: httpProbe({ privateAddresses: services.previewPrivateAddresses }),
  settings: { ...defaultWorkerSettings, queuePrefix: services.previewQueuePrefix },
  // Straight to stdout, as the JSON log format requires of embedded metrics (packages/aws lambda-output).
  metrics: embeddedMetrics(stdoutLine),
};

export const handler = lambdaHandler(
  deps,
  services.aws.clients.sqs,
  settings.aws.names.jobQueueUrl,
  sweeps(deps),
  metrics,
);
