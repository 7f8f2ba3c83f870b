import { Builds } from '@svc/core';
import * as v from 'valibot';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { invalidArgument } from '../../errors.ts';
import { checkCursor, checkLimit, checkName } from '../../validate.ts';
import { pageFlags } from '../_shared.ts';

/** A filter checked with the same field schema the server publishes builds with. */
function field(name: 'repository' | 'commit_sha', value: string | undefined, flag: string) {
  if (value === undefined) return undefined;
  const result = v.safeParse(Builds.PublishBuildBody.entries[name], value);
  if (!result.success) throw invalidArgument(flag, result.issues[0]?.message ?? 'invalid value');
  return result.output;
}

export default defineCommand({
  name: 'source list',
  summary: 'Published builds of a project, newest first: { items, next_cursor }.',
  notes: [
    'An empty list means CI has not published that revision yet: the service neither starts CI',
    'nor substitutes an older build. Use an item id with --build component=<id>.',
  ],
  flags: {
    project: { type: 'string', required: true, description: 'Catalog project.' },
    component: { type: 'string', description: 'Only builds of this component.' },
    repository: { type: 'string', value: 'owner/name', description: 'Only builds from this repository.' },
    commit: { type: 'string', value: 'sha', description: 'Only builds of this 40-character commit SHA.' },
    ...pageFlags,
  },
  run: ({ flags, context }) =>
    api(context).call('listBuilds', {
      path: { project: checkName(flags.project, '--project') },
      query: {
        component: flags.component === undefined ? undefined : checkName(flags.component, '--component'),
        repository: field('repository', flags.repository, '--repository'),
        commit_sha: field('commit_sha', flags.commit, '--commit'),
        limit: checkLimit(flags.limit),
        after: checkCursor(flags.after),
      },
    }),
});
