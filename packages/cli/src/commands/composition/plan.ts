import { Compositions } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../errors.ts';
import { readJsonFile } from '../../files.ts';
import { checkFileBody } from '../../validate.ts';
import { fileFlag } from '../_shared.ts';

export default defineCommand({
  name: 'composition plan',
  summary: 'Plan a create from a JSON body without doing it: read-only, reserves nothing.',
  notes: [
    'The file holds the create body: { project, baseline, name, overrides, ttl, message_isolation,',
    'expected_preview_revisions }. stdout is the plan; a plan with blockers exits 1.',
  ],
  flags: fileFlag,
  async run({ flags, context }) {
    const body = await readJsonFile(flags.file);
    // The shape is checked here as the server checks it; rule violations are the plan's blockers.
    checkFileBody(Compositions.CreateCompositionBody, body);
    const plan = await api(context).call('planComposition', { body });
    if (plan.blockers.length) {
      throw new CliError(
        localProblem(
          LocalCode.PlanBlocked,
          `the plan has ${plan.blockers.length} blocker(s): ${plan.blockers.map((b) => b.message).join('; ')}`,
          plan.blockers.map((b) => ({ path: b.component ?? '', message: b.message })),
        ),
        ExitCode.Failure,
        { output: plan },
      );
    }
    return plan;
  },
});
