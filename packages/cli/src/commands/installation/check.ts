import { Checks, Installation } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../errors.ts';
import { readJsonFile } from '../../files.ts';
import { checkFileBody } from '../../validate.ts';
import { fileFlag } from '../_shared.ts';

export default defineCommand({
  name: 'installation check',
  summary:
    "Read-only preflight of the server's cluster for the baselines an installation specification names (Admin only).",
  notes: [
    'The file holds { targets?: [{ project, baselines?, gateway?: { namespace, name } }] }; {} checks',
    'every registered baseline with its catalog Gateway (docs/installation.md).',
    'stdout is { status, checked_at, checks: [{ id, status, message, evidence }] }, whatever the verdict.',
  ],
  flags: fileFlag,
  exitCodes: {
    remap: { [ExitCode.Usage]: ExitCode.CheckUsage, [ExitCode.Failure]: ExitCode.CheckNotRun },
    summary:
      '0 passed, 1 failed, 2 incomplete evidence, 5 authentication, 6 usage, 7 no verdict (API unreachable or refused), 8 forbidden (not an Admin).',
  },
  async run({ flags, context }) {
    const body = await readJsonFile(flags.file);
    checkFileBody(Installation.InstallationSpec, body);
    const report = await api(context).call('checkInstallation', { body });
    if (report.status === Installation.InstallationStatus.Passed) return report;
    const failed = report.status === Installation.InstallationStatus.Failed;
    const open = report.checks.filter(
      (c) => c.status === (failed ? Checks.CheckStatus.Failed : Checks.CheckStatus.Unknown),
    );
    throw new CliError(
      localProblem(
        failed ? LocalCode.InstallationFailed : LocalCode.InstallationIncomplete,
        `${open.length} check(s) ${failed ? 'failed' : 'without evidence'}: ${open.map((c) => `${c.id}: ${c.message}`).join('; ')}`,
        open.map((c) => ({ path: c.id, message: c.message })),
      ),
      failed ? ExitCode.CheckFailed : ExitCode.CheckIncomplete,
      { output: report, verdict: true },
    );
  },
});
