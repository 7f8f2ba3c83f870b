import { defineCommand } from '../../command.ts';
import { credentialsPath, removeSavedLogin } from '../../credentials.ts';

export default defineCommand({
  name: 'auth logout',
  summary: "Forget this server's saved login (other servers' logins stay).",
  notes: ['The server has no revocation route yet, so the grant is only forgotten here: revoked is false.'],
  flags: {},
  async run({ context }) {
    const removed = await removeSavedLogin(context.env, context.apiUrl.origin);
    return {
      api_url: context.apiUrl.href.replace(/\/$/, ''),
      credentials_file: credentialsPath(context.env),
      removed,
      revoked: false,
    };
  },
});
