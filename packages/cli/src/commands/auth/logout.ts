import { defineCommand } from '../../command.ts';
import { credentialsPath, readSavedLogin, removeSavedLogin } from '../../credentials.ts';
import { revokeLogin } from '../../oauth.ts';

export default defineCommand({
  name: 'auth logout',
  summary:
    "Revoke this server's saved login on the server, then forget it here (other servers' logins stay).",
  notes: [
    'revoked is true once the server revoked the sign-in (its refresh and access tokens stop working at once).',
    'If the server cannot be reached the command fails and keeps the saved login, so it can be revoked later.',
  ],
  flags: {},
  async run({ context }) {
    const saved = await readSavedLogin(context.env, context.apiUrl);
    const token = saved?.refresh_token ?? saved?.access_token;
    const revoked = token ? await revokeLogin(context.transport, token) : false;
    const removed = await removeSavedLogin(context.env, context.apiUrl.origin);
    return {
      api_url: context.apiUrl.href.replace(/\/$/, ''),
      credentials_file: credentialsPath(context.env),
      removed,
      revoked,
    };
  },
});
