import { randomBytes } from 'node:crypto';
import { Auth, systemClock } from '@svc/core';
import { afterAll, beforeAll, inject } from 'vitest';
import { type Stack, type StackOptions, startStack } from '../stack.ts';
import { type HttpClient, httpClient } from './http.ts';

/** Endpoints of the run's shared emulators; fails loudly when the global setup did not start them. */
function emulatorEndpoints(): { dynamodbEndpoint: string; sqsEndpoint: string } {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  if (!dynamodbEndpoint || !sqsEndpoint) {
    throw new Error(
      'No emulator endpoints: run this test through a vitest project that lists the emulator global setup.',
    );
  }
  return { dynamodbEndpoint, sqsEndpoint };
}

/**
 * A resource prefix unique to one test file, so files share emulators without sharing data. Two
 * stacks given the same one are one stage deployed twice: the second reads what the first wrote.
 */
export function testResourcePrefix(): string {
  return `t${randomBytes(5).toString('hex')}-`;
}

/**
 * The test stacks' password hashes: 4 MiB instead of OWASP's 128. The suite signs in hundreds of
 * times, and none of its tests is about the cost (the unit tests are).
 */
export const testPasswordCost: Auth.ScryptCost = { N: 2 ** 12, r: 8, p: 1 };

/**
 * The API, worker and a local cluster in process, on free ports, against the shared emulators and
 * fresh resources; pods get ready in tens of milliseconds, the failure grace and the delay between
 * looks at a rollout are short, console pages refresh every quarter second, and password hashes
 * cost `testPasswordCost`.
 */
export type TestStackOptions = Omit<StackOptions, 'emulators' | 'port'>;

export function startTestStack(options: TestStackOptions = {}): Promise<Stack> {
  return startStack({
    podReadyDelayMs: 20,
    consoleRefreshMs: 250,
    passwordCost: testPasswordCost,
    ...options,
    workerSettings: {
      failureGraceMs: 1500,
      watchBoundMs: 3000,
      recheckDelaySeconds: 1,
      ...options.workerSettings,
    },
    port: 0,
    emulators: emulatorEndpoints(),
    resourcePrefix: options.resourcePrefix ?? testResourcePrefix(),
  });
}

/**
 * A machine token of the stack that never expires (subject `token:<name>`): an admin or member
 * (developer) on every project, or exactly the grants given.
 */
export async function testToken(
  stack: Stack,
  name: string,
  access: Auth.Role | Auth.Grant[] = Auth.Role.Member,
  clock: { now(): Date } = systemClock,
): Promise<string> {
  const issued = await Auth.mintToken(stack.stores.tokens, {
    name,
    grants: Array.isArray(access) ? access : Auth.grantsOfRole(access),
    createdBy: 'test',
    now: clock.now(),
    expiresAt: null,
  });
  return issued.token;
}

/** What a test file's {@link useTestStack} hands it once the stack answers. */
export interface TestEnvironment {
  readonly stack: Stack;
  /** A client of the stack's API that sends no credentials. */
  readonly http: HttpClient;
  /**
   * A machine token that never expires (subject `token:<name>`): an admin or member (developer)
   * on every project, or exactly the grants given.
   */
  token(name: string, access?: Auth.Role | Auth.Grant[]): Promise<string>;
}

export interface UseTestStackOptions extends TestStackOptions {
  /** Work started with the stack and awaited before the tests, e.g. building the CLI bundle. */
  alongside?: () => Promise<unknown>;
}

/**
 * One stack for the whole test file: started before its tests and stopped after them. `ready` gets
 * the running stack, for the file to keep what it uses and finish its own setup.
 */
export function useTestStack(
  options: UseTestStackOptions = {},
  ready: (environment: TestEnvironment) => void | Promise<void> = () => {},
): void {
  const { alongside, ...stackOptions } = options;
  let stack: Stack | undefined;
  beforeAll(async () => {
    const [started] = await Promise.all([startTestStack(stackOptions), alongside?.()]);
    stack = started;
    const clock = stackOptions.clock ?? systemClock;
    await ready({
      stack: started,
      http: httpClient(started.apiUrl),
      token: (name, access) => testToken(started, name, access, clock),
    });
  });
  afterAll(() => stack?.stop());
}
