import { Checks } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { invalidArgument } from '../../errors.ts';
import { checkId, checkInteger, checkWith } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

export default defineCommand({
  name: 'composition check',
  summary:
    "Record a test result against a generation of the composition; it joins the composition's verification.",
  notes: [
    'stdout is the check as svc composition verification shows it, with its freshness: a result for',
    'a generation other than the observed one, or from before a baseline change, reads stale.',
  ],
  positionals: compositionId,
  flags: {
    generation: {
      type: 'string',
      required: true,
      value: 'generation',
      description:
        'The composition generation the tests ran against (svc composition get … | jq .generation).',
    },
    status: { type: 'string', required: true, value: 'passed|failed', description: 'The result.' },
    message: {
      type: 'string',
      required: true,
      value: 'text',
      description: 'What was tested (≤ 1024 characters).',
    },
  },
  run({ args, flags, context }) {
    if (flags.status !== 'passed' && flags.status !== 'failed') {
      throw invalidArgument('--status', `must be passed or failed; got ${flags.status}`);
    }
    return api(context).call('recordCompositionCheck', {
      path: { id: checkId(args.id) },
      body: {
        composition_generation: checkInteger(flags.generation, '--generation', {
          min: 1,
          max: Number.MAX_SAFE_INTEGER,
        }),
        status: flags.status,
        message: checkWith(Checks.CompositionCheckBody.entries.message, flags.message, '--message'),
      },
    });
  },
});
