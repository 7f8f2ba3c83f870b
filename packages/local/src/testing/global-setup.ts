/**
 * One DynamoDB Local and one fauxqs per test run, shared by every test file (each file isolates
 * itself with its own table and queues, see `testEnvironment`). Several vitest projects list this
 * setup and each project loads it as a module of its own, so the emulators are kept on the main
 * process's global object: they start once and stop after the last project is done.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../dynamodb-local.ts';
import { startSqsEmulator } from '../fauxqs.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sqsEndpoint: string;
  }
}

type Emulators = {
  dynamodb: { endpoint: string; stop(): Promise<void> };
  sqs: { endpoint: string; stop(): Promise<void> };
};

interface SharedEmulators {
  started: Promise<Emulators> | undefined;
  users: number;
}

const runKey = Symbol.for('svc.test-emulators');
const holder = globalThis as { [runKey]?: SharedEmulators };
holder[runKey] ??= { started: undefined, users: 0 };
const run = holder[runKey];

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  run.users += 1;
  run.started ??= Promise.all([startDynamoDbLocal(), startSqsEmulator()]).then(([dynamodb, sqs]) => ({
    dynamodb,
    sqs,
  }));
  const { dynamodb, sqs } = await run.started;
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    run.users -= 1;
    if (run.users > 0) return;
    run.started = undefined;
    await Promise.all([dynamodb.stop(), sqs.stop()]);
  };
}
