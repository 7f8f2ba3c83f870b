import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type Stack, type StackOptions, startStack } from '../stack.ts';

/** Endpoints of the run's shared emulators; fails loudly when the global setup did not start them. */
export function emulatorEndpoints(): { dynamodbEndpoint: string; sqsEndpoint: string } {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  if (!dynamodbEndpoint || !sqsEndpoint) {
    throw new Error(
      'No emulator endpoints: run this test through a vitest project that lists the emulator global setup.',
    );
  }
  return { dynamodbEndpoint, sqsEndpoint };
}

/** A resource prefix unique to one test file, so files share emulators without sharing data. */
export function uniquePrefix(): string {
  return `t${randomBytes(5).toString('hex')}-`;
}

/**
 * The API, worker and a local cluster in process, on free ports, against the shared emulators and
 * fresh resources; pods get ready in tens of milliseconds and the failure grace is short.
 */
export function startTestStack(
  options: Omit<StackOptions, 'emulators' | 'resourcePrefix' | 'port'> = {},
): Promise<Stack> {
  return startStack({
    gatewayPort: 0,
    podReadyDelayMs: 20,
    ...options,
    workerSettings: { failureGraceMs: 1500, watchBoundMs: 3000, ...options.workerSettings },
    port: 0,
    emulators: emulatorEndpoints(),
    resourcePrefix: uniquePrefix(),
  });
}
