/// <reference path="./.sst/platform/config.d.ts" />

// Thin by design: stage settings live in stacks/, resources in infra/ (computed from the shared
// declaration in packages/core/src/resources.ts); infra/wiring.test.ts loads this file with
// recording stand-ins for SST. Deploy (docs/deploy.md):
// SVC_COMMIT=$(git rev-parse HEAD) npx sst deploy --stage <stage>
async function stageSettings(stage: string) {
  const { deployProblems } = await import('./stacks/schema.ts');
  // A stage is a file: stacks/<stage>.ts (validated by its defineStage when it loads).
  const { default: settings } = await import(`./stacks/${stage}.ts`);
  const problems = deployProblems(stage, settings);
  if (problems.length > 0) throw new Error(`stage "${stage}" cannot be deployed: ${problems.join('; ')}`);
  return settings as import('./stacks/schema.ts').StageSettings;
}

export default $config({
  async app(input) {
    const settings = await stageSettings(input.stage);
    const { appName } = await import('./infra/settings.ts');
    return {
      name: appName,
      home: 'aws',
      removal: settings.retainData ? 'retain' : 'remove',
      // `sst remove --stage production` refuses: drain it first (docs/deploy.md), then lift this.
      protect: input.stage === 'production',
      // The stage file's region, not the deployer's AWS_REGION: one stage, one region.
      providers: { aws: { region: settings.region } },
    };
  },
  async run() {
    const { stack } = await import('./infra/stack.ts');
    return stack(await stageSettings($app.stage));
  },
});
