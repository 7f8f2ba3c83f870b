/// <reference path="./.sst/platform/config.d.ts" />

// Thin by design: stage settings live in stacks/, resources in infra/ (computed from the shared
// declaration in packages/core/src/resources.ts). Deploy:
// AWS_REGION=<region> SVC_COMMIT=$(git rev-parse HEAD) npx sst deploy --stage <stage>
export default $config({
  app(input) {
    return {
      name: 'preview-composition',
      home: 'aws',
      removal: input?.stage === 'production' ? 'retain' : 'remove',
    };
  },
  async run() {
    const { default: settings } = await import(`./stacks/${$app.stage}.ts`);
    const { storage } = await import('./infra/storage.ts');
    const { queues } = await import('./infra/queues.ts');
    const { functions } = await import('./infra/functions.ts');
    const { table } = storage(settings);
    const { jobs, deadLetter } = queues();
    const { api, webhook } = functions(settings, { table, jobs, deadLetter });
    return { api: api.url, webhook: webhook.url, table: table.name };
  },
});
