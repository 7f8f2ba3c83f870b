import { Drafts, ProblemError } from '@svc/core';
import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../../errors.ts';
import { readJsonFile } from '../../../files.ts';
import { fileFlag } from '../../_shared.ts';

export default defineCommand({
  name: 'catalog draft save',
  summary:
    'Save your onboarding draft of a project (PUT …/onboarding-draft); prints it at its next revision.',
  notes: [
    'The file holds { project, revision, stage, configuration, selections? }; start at revision 0,',
    'then give the revision the last save printed. A stale revision exits 4 (409 stale_revision).',
    'A draft never holds environment values, ConfigMap values, credentials or messaging',
    'configuration: such a file is refused here (exit 2), before anything is sent.',
  ],
  flags: fileFlag,
  async run({ flags, context }) {
    let draft: Drafts.DraftBody;
    try {
      draft = Drafts.parseBody(await readJsonFile(flags.file));
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      // The server's own rules: a refused file never leaves this machine.
      const errors = error.errors.map((e) => ({ ...e, path: `--file${e.path}` }));
      throw new CliError(
        localProblem(
          LocalCode.InvalidArgument,
          `--file: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}; nothing was sent`,
          errors,
        ),
        ExitCode.Usage,
      );
    }
    return api(context).call('saveOnboardingDraft', { path: { project: draft.project }, body: draft });
  },
});
