/** AWS Lambda entry of the worker: the job queue's event source and the schedules' target. */
import {
  createSnsClient,
  embeddedMetricsSink,
  lambdaLog,
  runtimeFromEnvironment,
  snsSqsMessaging,
  stdoutLine,
} from '@svc/aws';
import { Forge, observedCompositionStore } from '@svc/core';
import { forgeWiring, gitHubAppFromEnvironment } from '@svc/github';
import { clusterFromEnvironment } from '@svc/kube';
import { defaultWorkerSettings } from './deps.ts';
import { lambdaHandler } from './lambda-handler.ts';
import { embeddedMetrics } from './metrics.ts';
import { httpProbe } from './prober.ts';
import { sweeps } from './sweeps.ts';

// First: it fills process.env with the linked secrets the GitHub App's settings read below.
const runtime = runtimeFromEnvironment(process.env, { requireCursorKey: true });
const log = lambdaLog('worker');
const metrics = embeddedMetricsSink('worker');
const deps = {
  ...runtime.stores,
  compositions: observedCompositionStore(runtime.stores.compositions, metrics),
  clock: runtime.clock,
  previewUrl: runtime.previewUrl,
  forge: forgeWiring(gitHubAppFromEnvironment(process.env)).forge,
  forgeSettings: Forge.defaultForgeSettings,
  cluster: clusterFromEnvironment(process.env),
  messaging: snsSqsMessaging({ sqs: runtime.clients.sqs, sns: createSnsClient(runtime.aws) }),
  probe: httpProbe(),
  settings: { ...defaultWorkerSettings, queuePrefix: runtime.previewQueuePrefix },
  log,
  // Straight to stdout, as the JSON log format requires of embedded metrics (packages/aws lambda-output).
  metrics: embeddedMetrics(stdoutLine),
};

export const handler = lambdaHandler(
  deps,
  runtime.clients.sqs,
  runtime.names.jobQueueUrl,
  sweeps(deps),
  metrics,
);
