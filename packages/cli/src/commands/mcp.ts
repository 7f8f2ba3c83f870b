import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiProblemError, CallApi } from '@svc/mcp';
import { defineCommand } from '../command.ts';
import type { Context } from '../context.ts';
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
      call: callApi(context, mcp.ApiProblemError),
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

/** Tool calls go through the CLI's own client: its credentials, refresh, timeouts and transport rules. */
function callApi(context: Context, ProblemError: typeof ApiProblemError): CallApi {
  return async ({ method, path, query, body, idempotencyKey, timeoutSeconds }) => {
    try {
      const answer = await context.http.request(method, path, {
        ...(query === undefined ? {} : { query }),
        ...(body === undefined ? {} : { body }),
        ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
        ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
      });
      return answer.body;
    } catch (error) {
      if (error instanceof CliError) throw new ProblemError(error.problem, { cause: error });
      throw error;
    }
  };
}
