import { getVersion } from '@svc/contract/service';
import { compatibleReleases } from '@svc/core/version';
import { cliClient } from '../client.ts';
import { defineCommand } from '../command.ts';
import { CliError } from '../errors.ts';
import { cliBuild } from '../release.ts';

export default defineCommand({
  name: 'version',
  summary: "The CLI's release and commit, and the server's GET /version when reachable.",
  notes: [
    'server is null (and server_problem says why) when the API cannot be read; the exit code is still 0.',
    'compatible: whether the two releases share a major (docs/cli.md, "Versions"); null when unknown.',
  ],
  flags: {},
  async run({ context }) {
    const cli = { ...cliBuild, node: process.version };
    const api_url = context.apiUrl.href.replace(/\/$/, '');
    try {
      // Only this operation is bound: svc version loads none of the others.
      const server = await cliClient({ getVersion }, context.transport).call('getVersion', undefined, {
        timeoutSeconds: 3,
      });
      const compatible = compatibleReleases(cli.release, server.release);
      if (compatible === false) {
        context.hint(
          `this CLI (${cli.release}) and the server (${server.release}) are of different majors: install the CLI of the server's major`,
        );
      }
      return { cli, api_url, server, server_problem: null, compatible };
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      const { code, detail } = error.problem;
      return { cli, api_url, server: null, server_problem: { code, detail }, compatible: null };
    }
  },
});
