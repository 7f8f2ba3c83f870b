import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { type Credential, credentialsPath, readSavedLogin } from '../../credentials.ts';
import { CliError, ExitCode } from '../../errors.ts';

export default defineCommand({
  name: 'auth status',
  summary: 'The effective credential source (spec 5.6) and whether the server accepts it.',
  notes: [
    'Precedence: SVC_API_TOKEN_FILE, then SVC_API_TOKEN, then the saved login for this server, then none.',
    'Exits 5 when the server refuses the credential, 1 when it cannot be reached.',
  ],
  flags: {},
  async run({ context }) {
    let credential: Credential | null = null;
    let problem: CliError | null = null;
    try {
      credential = await context.credential();
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      problem = error;
    }
    const saved = await readSavedLogin(context.env, context.apiUrl).catch(() => null);
    const report = {
      api_url: context.apiUrl.href.replace(/\/$/, ''),
      source: credential?.source ?? null,
      token_file: credential?.file ?? null,
      credentials_file: credentialsPath(context.env),
      saved_login: saved
        ? { subject: saved.subject, access_token_expires_at: saved.access_token_expires_at }
        : null,
      server: null as null | { accepted: boolean; status: number },
    };
    if (problem) throw new CliError(problem.problem, problem.exitCode, { output: report });
    try {
      const answer = await api(context.http).probeAuth();
      report.server = { accepted: true, status: answer.status };
      return report;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      const status = error.problem.status;
      if (status !== null) report.server = { accepted: error.exitCode !== ExitCode.Auth, status };
      throw new CliError(error.problem, error.exitCode, { output: report });
    }
  },
});
