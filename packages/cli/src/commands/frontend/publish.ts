import { Frontends } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkWith } from '../../validate.ts';
import { bindingFlags, bindingOf, checkVersion, expectedVersionFlag } from './_flags.ts';

export default defineCommand({
  name: 'frontend publish',
  summary: 'Record where the frontend revision is published; prints the binding at its next version.',
  notes: ['A stale --expected-version exits 4 (409 version_mismatch).'],
  flags: {
    ...bindingFlags,
    ...expectedVersionFlag,
    url: {
      type: 'string',
      required: true,
      value: 'url',
      description: 'Where it is published (http or https).',
    },
  },
  run: ({ flags, context }) =>
    api(context).call('publishFrontend', {
      path: bindingOf(flags),
      body: {
        expected_version: checkVersion(flags['expected-version']),
        url: checkWith(Frontends.PublishFrontendBody.entries.url, flags.url, '--url'),
      },
    }),
});
