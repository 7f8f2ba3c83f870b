import { Checks } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { invalidArgument } from '../../errors.ts';
import { checkInteger, checkWith } from '../../validate.ts';
import { bindingFlags, bindingOf, checkVersion, expectedVersionFlag } from './_flags.ts';

export default defineCommand({
  name: 'frontend check',
  summary:
    "Record a check result against a generation of the bound composition; it joins the composition's verification.",
  notes: [
    'stdout is the check as svc composition verification shows it, with its freshness: a check of a',
    'generation other than the observed one reads stale. A stale --expected-version exits 4 (409).',
  ],
  flags: {
    ...bindingFlags,
    ...expectedVersionFlag,
    'composition-generation': {
      type: 'string',
      required: true,
      value: 'generation',
      description: 'The composition generation the frontend was checked against.',
    },
    status: { type: 'string', required: true, value: 'passed|failed', description: 'The result.' },
    message: {
      type: 'string',
      required: true,
      value: 'text',
      description: 'What was checked (≤ 1024 characters).',
    },
  },
  run({ flags, context }) {
    if (flags.status !== 'passed' && flags.status !== 'failed') {
      throw invalidArgument('--status', `must be passed or failed; got ${flags.status}`);
    }
    return api(context).call('recordFrontendCheck', {
      path: bindingOf(flags),
      body: {
        expected_version: checkVersion(flags['expected-version']),
        composition_generation: checkInteger(flags['composition-generation'], '--composition-generation', {
          min: 1,
          max: Number.MAX_SAFE_INTEGER,
        }),
        status: flags.status,
        message: checkWith(Checks.FrontendCheckBody.entries.message, flags.message, '--message'),
      },
    });
  },
});
