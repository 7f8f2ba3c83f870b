import { Builds } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkName, checkWith } from '../../validate.ts';

export default defineCommand({
  name: 'source resolve',
  summary:
    'Resolve a ref to its commit and the build CI published for it: { ref, matched_ref, commit_sha, build }.',
  notes: [
    '--ref takes main, refs/heads/main, v1.2.0, refs/tags/v1.2.0 or a full commit SHA; a short name',
    'is tried as published, then as a tag, then as a branch (as git does).',
    'No build published for that ref exits 1 (404): CI must publish that revision first; the service',
    'never substitutes an older build. Use build.id with --build component=<id>.',
  ],
  flags: {
    project: { type: 'string', required: true, description: 'Catalog project.' },
    repository: { type: 'string', required: true, value: 'owner/name', description: 'Source repository.' },
    component: { type: 'string', required: true, description: 'Component the build is for.' },
    ref: {
      type: 'string',
      required: true,
      value: 'ref',
      description: 'Branch, tag, full ref or commit SHA.',
    },
  },
  run: ({ flags, context }) =>
    api(context).call('resolveSource', {
      path: { project: checkName(flags.project, '--project') },
      query: {
        repository: checkWith(Builds.PublishBuildBody.entries.repository, flags.repository, '--repository'),
        component: checkName(flags.component, '--component'),
        ref: checkWith(Builds.PublishBuildBody.entries.ref, flags.ref, '--ref'),
      },
    }),
});
