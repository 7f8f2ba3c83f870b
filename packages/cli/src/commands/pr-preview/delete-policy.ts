import { Builds } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkName, checkWith } from '../../validate.ts';

const { repository: Repository } = Builds.PublishBuildBody.entries;

export default defineCommand({
  name: 'pr-preview delete-policy',
  summary:
    "Delete a repository's preview policy in a project: its previews there stop, and the project gives the repository up.",
  notes: [
    'A repository belongs to the project whose policy holds it; another project may save one only',
    'after this (docs/forge.md, moving a repository). Prints { deleted: true }.',
  ],
  flags: {
    project: { type: 'string', required: true, description: 'The project whose policy goes.' },
    repository: { type: 'string', required: true, value: 'owner/name', description: 'The repository.' },
  },
  run: async ({ flags, context }) => {
    await api(context).call('deletePreviewPolicy', {
      path: {
        project: checkName(flags.project, '--project'),
        repository: checkWith(Repository, flags.repository, '--repository'),
      },
    });
    return { deleted: true };
  },
});
