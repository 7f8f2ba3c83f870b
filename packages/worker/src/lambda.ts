/** AWS Lambda entry of the worker: the job queue's event source and the schedules' target. */
import { runtimeFromEnvironment, snsSqsMessaging } from '@svc/aws';
import { Forge } from '@svc/core';
import { forgeWiring, gitHubAppFromEnvironment } from '@svc/github';
import { clusterFromEnvironment } from '@svc/kube';
import { defaultWorkerSettings } from './deps.ts';
import { lambdaHandler } from './lambda-handler.ts';
import { embeddedMetrics } from './metrics.ts';
import { httpProbe } from './prober.ts';
import { sweeps } from './sweeps.ts';

const runtime = runtimeFromEnvironment();
const log = (entry: Record<string, unknown>) => console.log(JSON.stringify(entry));
const deps = {
  ...runtime.stores,
  clock: runtime.clock,
  previewUrl: runtime.previewUrl,
  forge: forgeWiring(gitHubAppFromEnvironment(process.env)).forge,
  forgeSettings: Forge.defaultForgeSettings,
  cluster: clusterFromEnvironment(process.env),
  messaging: snsSqsMessaging(runtime.clients),
  probe: httpProbe(),
  settings: defaultWorkerSettings,
  log,
  metrics: embeddedMetrics(),
};

export const handler = lambdaHandler(deps, runtime.clients.sqs, runtime.names.jobQueueUrl, sweeps(deps));
