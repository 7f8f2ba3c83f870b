import type { Auth } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { type Credential, credentialsPath, readSavedLogin } from '../../credentials.ts';
import { CliError, ExitCode } from '../../errors.ts';

export default defineCommand({
  name: 'auth status',
  summary:
    'The effective credential source (spec 5.6), whether the server accepts it, and whose identity it carries.',
  notes: [
    'Precedence: SVC_API_TOKEN_FILE, then SVC_API_TOKEN, then the saved login for this server, then none.',
    'identity is GET /v1/auth/identity: { subject, kind, grants, author, credential, mode } (null from a server without that route).',
    'A saved login whose access token expired is refreshed first (never through a browser).',
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
      identity: null as Auth.IdentityView | null,
    };
    if (problem) throw new CliError(problem.problem, problem.exitCode, { output: report });
    const client = api(context);
    try {
      const answer = await client.send('getIdentity');
      report.identity = answer.body;
      report.server = { accepted: true, status: answer.status };
      return report;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      // A server from before GET /v1/auth/identity: any authenticated read tells acceptance.
      if (error.problem.status !== 404) return refused(error, report);
    }
    try {
      const answer = await client.send('listProjects', { query: { limit: 1 } });
      report.server = { accepted: true, status: answer.status };
      return report;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      return refused(error, report);
    }
  },
});

/** The server refused (or could not be reached): the report still goes to stdout, the problem to stderr. */
function refused(error: CliError, report: { server: null | { accepted: boolean; status: number } }): never {
  const status = error.problem.status;
  if (status !== null) report.server = { accepted: error.exitCode !== ExitCode.Auth, status };
  throw new CliError(error.problem, error.exitCode, { output: report, hint: error.hint });
}
