import { Forge } from '@svc/core';
import * as v from 'valibot';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { readJsonFile } from '../../files.ts';
import { checkFileBody } from '../../validate.ts';
import { fileFlag } from '../_shared.ts';

/** The file: which repository of which project, and its policy (the PUT body). */
const PolicyFile = v.strictObject({
  project: v.string(),
  repository: v.string(),
  ...Forge.PreviewPolicyBody.entries,
});

export default defineCommand({
  name: 'pr-preview policy',
  summary: "Configure a repository's preview policy; prints the policy as stored.",
  notes: [
    'The file: { project, repository: "owner/name", enabled, trigger_label, baseline, ttl?,',
    'components: [..], fork_pull_requests?, group_by?, expected_revision? }. Open pull requests converge to it.',
  ],
  flags: fileFlag,
  run: async ({ flags, context }) => {
    const raw = await readJsonFile(flags.file);
    checkFileBody(PolicyFile, raw);
    const { project, repository, ...policy } = raw;
    return api(context).call('putPreviewPolicy', { path: { project, repository }, body: policy });
  },
});
