import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../errors.ts';
import { readJsonFile } from '../../files.ts';
import { fileFlag } from '../_shared.ts';

export default defineCommand({
  name: 'catalog validate',
  summary: 'Dry-run validation of a catalog manifest; changes nothing.',
  notes: ['stdout is { valid, problems }; an invalid manifest exits 1.'],
  flags: fileFlag,
  async run({ flags, context }) {
    const result = await api(context).call('validateCatalog', { body: await readJsonFile(flags.file) });
    if (!result.valid) {
      throw new CliError(
        localProblem(
          LocalCode.CatalogInvalid,
          `${flags.file} has ${result.problems.length} problem(s): ${result.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
          result.problems.map((p) => ({ path: p.path, message: p.message })),
        ),
        ExitCode.Failure,
        { output: result },
      );
    }
    return result;
  },
});
