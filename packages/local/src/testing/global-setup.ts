/**
 * One DynamoDB Local and one fauxqs per test run, shared by every test file (each file isolates
 * itself with its own table and queues, see `testEnvironment`). Several vitest projects list this
 * setup; the emulators start once and stop after the last project is done.
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

let shared: Promise<Emulators> | undefined;
let users = 0;

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  users += 1;
  shared ??= Promise.all([startDynamoDbLocal(), startSqsEmulator()]).then(([dynamodb, sqs]) => ({
    dynamodb,
    sqs,
  }));
  const { dynamodb, sqs } = await shared;
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    users -= 1;
    if (users > 0) return;
    await Promise.all([dynamodb.stop(), sqs.stop()]);
    shared = undefined;
  };
}
