/**
 * The worker's wiring, for its Lambda entry and the local stack alike: the services, and what the
 * worker adds to them (the routing check's probe, its timings, where its counts go). Apart from
 * the services' wiring, so the API, which imports that at every cold start, never loads the worker.
 */
import type { Messaging } from '@svc/core';
import {
  defaultWorkerSettings,
  httpProbe,
  type WorkerDeps,
  type WorkerMetrics,
  type WorkerSettings as WorkerTimings,
} from '@svc/worker';
import { type Adapters, type Services, wireServices } from './services.ts';
import type { ServiceSettings } from './settings.ts';

export interface WorkerAdapters extends Adapters<Messaging.MessagingPort> {
  /** Where the worker counts what it drops or loses: embedded metrics on Lambda, memory locally. */
  workerMetrics: WorkerMetrics;
  /** Timings other than the deployed ones (tests shorten the waits). */
  timings?: Partial<WorkerTimings>;
}

/** What the worker's job handler and sweeps run on. */
export type WorkerServices = Services<Messaging.MessagingPort> & WorkerDeps;

export function wireWorker(
  settings: Pick<ServiceSettings, 'aws' | 'kube' | 'github' | 'origin'>,
  adapters: WorkerAdapters,
): WorkerServices {
  const services = wireServices(settings, adapters);
  return {
    ...services,
    probe: httpProbe({ privateAddresses: services.previewPrivateAddresses }),
    settings: { ...defaultWorkerSettings, queuePrefix: services.previewQueuePrefix, ...adapters.timings },
    metrics: adapters.workerMetrics,
  };
}
