import { defineConfig } from 'vitest/config';

/** Projects whose tests talk to DynamoDB Local and fauxqs share one of each per run (see global setup). */
const emulatorSetup = ['packages/local/src/testing/global-setup.ts'];

const pkg = (name: string, needsEmulators = false) => ({
  extends: false as const,
  test: {
    name,
    include: [`packages/${name}/src/**/*.test.ts`, `packages/${name}/test/**/*.test.ts`],
    globalSetup: needsEmulators ? emulatorSetup : [],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    projects: [
      pkg('core'),
      { extends: false, test: { name: 'infra', include: ['infra/**/*.test.ts', 'stacks/**/*.test.ts'] } },
      pkg('aws', true),
      pkg('kube'),
      pkg('api', true),
      pkg('worker', true),
      pkg('cli', true),
      pkg('local-cluster'),
      pkg('local-forge'),
      pkg('local', true),
      {
        extends: false,
        test: {
          name: 'e2e',
          include: ['tests/**/*.test.ts'],
          globalSetup: emulatorSetup,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
