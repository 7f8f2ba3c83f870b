import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Projects whose tests talk to DynamoDB Local and fauxqs share one of each per run (see global setup). */
const emulatorSetup = ['packages/local/src/testing/global-setup.ts'];

/**
 * Tests that need no emulator, no Java and no stack: pure rules and in-process code, beside the
 * code in `src/`. `npm run test:unit` runs only these; the package projects below leave them out,
 * so `npm test` runs each test once.
 */
const unitTests = [
  'packages/core/src/**/*.test.ts',
  'packages/contract/src/**/*.test.ts',
  'packages/client/src/**/*.test.ts',
  'packages/api/src/**/*.test.ts',
  'packages/console/src/**/*.test.ts',
  'packages/aws/src/**/*.test.ts',
  'packages/worker/src/**/*.test.ts',
  'packages/kube/src/**/*.test.ts',
  'packages/mcp/src/**/*.test.ts',
  'packages/github/src/**/*.test.ts',
  'packages/wiring/src/**/*.test.ts',
  'packages/local-cluster/src/**/*.test.ts',
  'packages/local-iam/src/**/*.test.ts',
  'infra/**/*.test.ts',
  'stacks/**/*.test.ts',
];

/**
 * Most files spend much of their time waiting (on a pod's readiness, a console's refresh, a lease
 * to lapse, a default timeout), not on a core: one file more than there are cores (three on two
 * cores, where vitest's default is one) keeps the cores busy. Every suite picks its ports,
 * state directory and table prefix afresh, so files never share anything but the emulators. Each
 * project says so itself: a project with `extends: false` does not take the root's settings, and
 * one left at a single worker runs its files one by one.
 *
 * Files run one after another in a worker without a fresh module graph each (`isolate: false`):
 * importing the stack costs more CPU than starting one, and every file starts and stops its own
 * stacks, so nothing of one file is left for the next but loaded code. Variables a test sets with
 * `vi.stubEnv` are put back after it (`unstubEnvs`). SST's `Resource` reads its
 * links once per process: only tests/lambda.test.ts goes through it, the links' unit tests pass
 * their own.
 */
const workers = { maxWorkers: availableParallelism() + 1, isolate: false, unstubEnvs: true };

const pkg = (name: string, options: { needsEmulators?: boolean; unitTestsInSrc?: boolean } = {}) => ({
  extends: false as const,
  test: {
    name,
    include: [
      ...(options.unitTestsInSrc ? [] : [`packages/${name}/src/**/*.test.ts`]),
      `packages/${name}/test/**/*.test.ts`,
    ],
    globalSetup: options.needsEmulators ? emulatorSetup : [],
    ...workers,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    ...workers,
    projects: [
      { extends: false, test: { name: 'unit', include: unitTests, ...workers, testTimeout: 30_000 } },
      pkg('kube', { unitTestsInSrc: true }),
      pkg('cli', { needsEmulators: true }),
      pkg('local-cluster', { unitTestsInSrc: true }),
      pkg('local-forge'),
      pkg('github', { unitTestsInSrc: true }),
      pkg('local', { needsEmulators: true }),
      {
        extends: false,
        test: {
          name: 'e2e',
          include: ['tests/**/*.test.ts'],
          globalSetup: emulatorSetup,
          ...workers,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
