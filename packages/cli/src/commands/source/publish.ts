import { Builds } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkName, checkWith } from '../../validate.ts';

const field = Builds.PublishBuildBody.entries;

export default defineCommand({
  name: 'source publish',
  summary:
    "CI's step: record which digest-pinned image a commit produced; prints the build (its id selects it).",
  notes: [
    'Publishing the same component, repository, commit and digest again answers the same build.',
    'Pull-request previews waiting for this commit proceed once it is published.',
  ],
  flags: {
    project: { type: 'string', required: true, description: 'Catalog project.' },
    component: { type: 'string', required: true, description: 'The component the image is a build of.' },
    repository: {
      type: 'string',
      required: true,
      value: 'owner/name',
      description: 'The source repository.',
    },
    commit: {
      type: 'string',
      required: true,
      value: 'sha',
      description: 'The full 40-character commit SHA.',
    },
    ref: {
      type: 'string',
      required: true,
      value: 'ref',
      description: 'The branch or tag built, e.g. refs/heads/main.',
    },
    image: {
      type: 'string',
      required: true,
      value: 'registry/repository@sha256:digest',
      description: 'The image, pinned by digest.',
    },
  },
  run: ({ flags, context }) =>
    api(context).call('publishBuild', {
      path: { project: checkName(flags.project, '--project') },
      body: {
        component: checkName(flags.component, '--component'),
        repository: checkWith(field.repository, flags.repository, '--repository'),
        commit_sha: checkWith(field.commit_sha, flags.commit, '--commit'),
        ref: checkWith(field.ref, flags.ref, '--ref'),
        image: checkWith(field.image, flags.image, '--image'),
      },
    }),
});
