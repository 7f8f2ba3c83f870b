/**
 * How every benchmark starts the service: the whole stack in memory, with DynamoDB Local and
 * fauxqs of its own (stopped with it), every server on a free port, its table and queues under the
 * benchmark's prefix. Each benchmark adds what it measures with (the pods' delay, no worker…).
 */
import { type Stack, type StackOptions, startStack } from '../src/stack.ts';

type BenchStackOptions = Omit<
  StackOptions,
  'port' | 'gatewayPort' | 'emulators' | 'stateDir' | 'resourcePrefix'
>;

export function startBenchStack(resourcePrefix: string, options: BenchStackOptions = {}): Promise<Stack> {
  return startStack({ ...options, port: 0, gatewayPort: 0, resourcePrefix });
}
