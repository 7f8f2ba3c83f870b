/** Starts cost-worker.ts as a child process and talks to it over IPC. */
import { type ChildProcess, fork } from 'node:child_process';
import type { Stack } from '../src/stack.ts';
import type { Calibration, WorkerBenchSettings, WorkerReport } from './cost-worker.ts';

export interface WorkerProcess {
  readonly pid: number;
  report(): Promise<WorkerReport>;
  reset(): Promise<void>;
  /** CPU per request of the worker's clients, measured after the run (not counted). */
  calibrate(compositionId: string): Promise<Calibration>;
  stop(): Promise<void>;
}

function next<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string } & T) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => reject(new Error(`the bench worker exited with code ${code}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** The worker of `stack` (on its table, queue and cluster) in a process of its own, so its CPU is its own. */
export async function startWorkerProcess(
  stack: Pick<Stack, 'endpoints' | 'resources' | 'kubeconfig'>,
  region: string,
  execArgv: string[] = [],
): Promise<WorkerProcess> {
  const settings: WorkerBenchSettings = {
    region,
    dynamodbEndpoint: stack.endpoints.dynamodb,
    sqsEndpoint: stack.endpoints.sqs,
    tableName: stack.resources.tableName,
    jobQueueUrl: stack.resources.jobQueueUrl,
    kubeconfig: stack.kubeconfig,
  };
  const child = fork(new URL('./cost-worker.ts', import.meta.url), {
    env: { ...process.env, BENCH_WORKER: JSON.stringify(settings) },
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await next(child, 'ready');
  return {
    pid: child.pid as number,
    async report() {
      const answer = next<{ report: WorkerReport }>(child, 'report');
      child.send({ type: 'report' });
      return (await answer).report;
    },
    async reset() {
      const answer = next(child, 'reset');
      child.send({ type: 'reset' });
      await answer;
    },
    async calibrate(id) {
      const answer = next<{ calibration: Calibration }>(child, 'calibrate');
      child.send({ type: 'calibrate', id });
      return (await answer).calibration;
    },
    async stop() {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}
