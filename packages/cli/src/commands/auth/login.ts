import { defineCommand } from '../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../errors.ts';

export default defineCommand({
  name: 'auth login',
  summary: 'Log in through a browser, for password or identity-provider installations.',
  notes: ['Servers in token or dev mode have no browser login: use SVC_API_TOKEN_FILE or SVC_API_TOKEN.'],
  flags: {},
  async run({ context }) {
    let offers = false;
    try {
      await context.http.request('GET', '/auth/config', { auth: false });
      offers = true;
    } catch (error) {
      if (!(error instanceof CliError) || error.problem.status !== 404) throw error;
    }
    const instead =
      'set SVC_API_TOKEN_FILE (or SVC_API_TOKEN) to a token an Admin issued with POST /v1/tokens instead';
    throw new CliError(
      localProblem(
        LocalCode.LoginNotSupported,
        offers
          ? `this svc release cannot complete a browser login yet; ${instead}`
          : `the server at ${context.apiUrl.origin} offers no browser login (its auth mode takes bearer tokens, or none in dev mode); ${instead}`,
      ),
      ExitCode.Failure,
    );
  },
});
