import { randomBytes, randomUUID } from 'node:crypto';
import type { Transport } from '@svc/client/bind';
import { ApiError } from '@svc/client/errors';
import { defineCommand } from '../command.ts';
import { CliError } from '../errors.ts';
import { cliBuild } from '../release.ts';
import { maxWaitSeconds } from './composition/wait.ts';

export default defineCommand({
  name: 'mcp',
  summary:
    'Serve the tools to an AI agent over stdio (Model Context Protocol); read-only unless --allow-writes.',
  notes: [
    'stdin and stdout carry the protocol; the agent client starts this command (docs/mcp.md shows the configuration).',
    'Credentials as for every command: SVC_API_TOKEN_FILE, SVC_API_TOKEN, then the saved login, refreshed as needed.',
    'update and destroy take two calls: the first answers the effect and a confirmation, the second acts.',
  ],
  flags: {
    'allow-writes': {
      type: 'boolean',
      description: 'Offer the tools that create, update and destroy compositions.',
    },
  },
  async run({ flags, context }) {
    // Loaded only here: every other command starts without the MCP SDK.
    const mcp = await import('@svc/mcp');
    await mcp.serveStdio({
      transport: problemsAsApiErrors(context.transport),
      // One process serves one agent: its session, for idempotency keys and confirmations.
      session: randomUUID(),
      allowWrites: flags['allow-writes'],
      confirmations: mcp.confirmations(randomBytes(32)),
      waitLimitSeconds: maxWaitSeconds,
      howToAllowWrites: 'whoever configures the agent can start it with "svc mcp --allow-writes"',
      version: cliBuild.release,
      onInternalError: (error) =>
        process.stderr.write(`svc mcp: ${(error as Error).stack ?? String(error)} (a bug in svc)\n`),
    });
    return undefined;
  },
});

/**
 * Tool calls go through the CLI's own transport: its credentials, refresh, timeouts and transport
 * rules. What it refuses itself (no answer, a credential it will not send) reaches the agent as
 * the problem the CLI would print.
 */
function problemsAsApiErrors(transport: Transport): Transport {
  return async (request) => {
    try {
      return await transport(request);
    } catch (error) {
      if (error instanceof CliError) throw new ApiError(error.problem, { cause: error });
      throw error;
    }
  };
}
