import type { StageSettings } from '../stacks/schema.ts';
import { alarms } from './alarms.ts';
import { functions } from './functions.ts';
import { queues } from './queues.ts';
import { storage } from './storage.ts';

/**
 * Everything a stage deploys, composed from the infra/ files, and the outputs docs/runbooks.md and
 * docs/deploy.md name: sst.config.ts's `run()`, and what infra/synth.ts runs with the recording
 * stand-ins.
 */
export function stack(settings: StageSettings) {
  const { table } = storage(settings);
  const { jobs, deadLetter } = queues();
  const { api, apiFunction, webhook, worker } = functions(settings, { table, jobs, deadLetter });
  const { topic } = alarms(settings, { api, apiFunction, webhook, worker, jobs, deadLetter });
  return {
    api: api.url,
    webhook: webhook.url,
    table: table.name,
    jobQueue: jobs.url,
    deadLetterQueue: deadLetter.url,
    apiFunction: apiFunction.name,
    workerFunction: worker.name,
    webhookFunction: webhook.name,
    apiRole: apiFunction.nodes.role.arn,
    workerRole: worker.nodes.role.arn,
    webhookRole: webhook.nodes.role.arn,
    alarmTopic: topic.arn,
  };
}
