import { spawn } from 'node:child_process';
import { signInOperations } from '@svc/contract/sign-in';
import { parseDuration } from '@svc/core';
import { cliClient } from '../../client.ts';
import { defineCommand } from '../../command.ts';
import { credentialsPath, saveLogin } from '../../credentials.ts';
import { CliError, ExitCode, invalidArgument, LocalCode, localProblem } from '../../errors.ts';
import { requireSafeTransport } from '../../http.ts';
import { startLogin } from '../../oauth.ts';

/** The desktop's "open this address" command; null where there is none to try. */
function opener(): [string, string[]] | null {
  if (process.platform === 'darwin') return ['open', []];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  return process.env.DISPLAY || process.env.WAYLAND_DISPLAY ? ['xdg-open', []] : null;
}

function openBrowser(url: string): boolean {
  const command = opener();
  if (!command) return false;
  try {
    const child = spawn(command[0], [...command[1], url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export default defineCommand({
  name: 'auth login',
  summary: 'Sign in through a browser (password or identity-provider installations) and save the login.',
  notes: [
    'Opens the service’s sign-in page; the answer comes back to a listener on 127.0.0.1 (PKCE S256, state checked).',
    'With --no-browser (or without a desktop) the address is printed on stderr: open it on any machine whose browser can reach 127.0.0.1 here (an SSH tunnel of the printed port works).',
    'Access tokens last 15 minutes and are refreshed silently for up to 30 days; the login is saved owner-only under the user-config directory (docs/auth.md).',
  ],
  flags: {
    'no-browser': {
      type: 'boolean',
      description: 'Print the sign-in address on stderr instead of opening a browser.',
    },
    timeout: {
      type: 'string',
      value: 'duration',
      default: '5m',
      description: 'How long to wait for the sign-in to come back (up to 30m).',
    },
  },
  async run({ flags, context }) {
    const timeout = parseDuration(flags.timeout);
    if (timeout === null || timeout < 1 || timeout > 1800) {
      throw invalidArgument('--timeout', 'must be a duration from 1s to 30m, e.g. 5m');
    }
    requireSafeTransport(context.apiUrl);
    const config = await cliClient(signInOperations, context.transport).call('getAuthConfig');
    if (!config.sign_in) {
      throw new CliError(
        localProblem(
          LocalCode.LoginNotSupported,
          `the server at ${context.apiUrl.origin} runs auth mode "${config.mode}", which has no browser sign-in; set SVC_API_TOKEN_FILE (or SVC_API_TOKEN) to a machine token an Admin issued with POST /v1/tokens instead`,
        ),
        ExitCode.Failure,
      );
    }
    const attempt = await startLogin(context.transport, context.apiUrl, timeout);
    if (flags['no-browser'] || !openBrowser(attempt.url)) {
      context.hint(`open this address in a browser to sign in:\n${attempt.url}`);
    } else {
      context.hint(`signing in through your browser; if it did not open, visit:\n${attempt.url}`);
    }
    const login = await attempt.done;
    await saveLogin(context.env, context.apiUrl.origin, login);
    return {
      api_url: context.apiUrl.href.replace(/\/$/, ''),
      subject: login.subject,
      access_token_expires_at: login.access_token_expires_at,
      refresh_token_expires_at: login.refresh_token_expires_at,
      credentials_file: credentialsPath(context.env),
    };
  },
});
