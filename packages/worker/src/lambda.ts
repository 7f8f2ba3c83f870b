/** AWS Lambda entry of the worker: the job queue's event source and the schedules' target. */
import { createSnsClient, embeddedMetricsSink, lambdaLog, snsSqsMessaging, stdoutLine } from '@svc/aws';
import { clusterFromSettings } from '@svc/kube';
import { settingsFromEnvironment, WorkerSettings } from '@svc/wiring';
import { wireWorker } from '@svc/wiring/worker';
import { lambdaHandler } from './lambda-handler.ts';
import { embeddedMetrics } from './metrics.ts';
import { sweeps } from './sweeps.ts';

const settings = settingsFromEnvironment(WorkerSettings, process.env);
const metrics = embeddedMetricsSink('worker', process.env);
const deps = wireWorker(settings, {
  cluster: clusterFromSettings,
  messaging: (aws) => snsSqsMessaging({ sqs: aws.clients.sqs, sns: createSnsClient(aws.settings) }),
  log: lambdaLog('worker'),
  metrics,
  // Straight to stdout, as the JSON log format requires of embedded metrics (packages/aws lambda-output).
  workerMetrics: embeddedMetrics(stdoutLine),
});

export const handler = lambdaHandler(
  deps,
  deps.aws.clients.sqs,
  deps.aws.names.jobQueueUrl,
  sweeps(deps),
  metrics,
);
