/**
 * An agent, as far as the tests need one: the MCP SDK's own client, talking to `svc mcp` over
 * stdio (the real executable as a subprocess) or to the API's `/mcp` over Streamable HTTP.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from '../../packages/cli/test/helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: structured content, inspected by assertions
type Json = any;

interface ToolAnswer {
  isError: boolean;
  /** The one line of text content. */
  text: string;
  structured: Json;
}

export interface Agent {
  readonly client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

function agent(client: Client): Agent {
  return {
    client,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { type: string; text?: string }[];
      return {
        isError: result.isError === true,
        text: content.map((part) => part.text ?? '').join('\n'),
        structured: result.structuredContent,
      };
    },
    close: () => client.close(),
  };
}

/** A config directory of its own, so no saved login of the developer's leaks in. */
export const freshConfigDir = () => mkdtempSync(join(tmpdir(), 'svc-mcp-config-'));

/** `svc mcp` started as an agent client starts it, with only the environment given. */
export async function stdioAgent(
  apiUrl: string,
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<Agent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repoRoot, 'packages', 'cli', 'bin', 'svc.js'), 'mcp', ...(options.args ?? [])],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: tmpdir(),
      XDG_CONFIG_HOME: freshConfigDir(),
      SVC_API_URL: apiUrl,
      ...options.env,
    },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  await client.connect(transport);
  return agent(client);
}

/** An agent of the API's `/mcp`, sending `headers` (Authorization) with every request. */
export async function httpAgent(url: string, headers: Record<string, string> = {}): Promise<Agent> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  await client.connect(transport);
  return agent(client);
}
