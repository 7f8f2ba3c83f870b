/**
 * The client configurations of docs/mcp.md, as written there, started the way an agent client
 * starts them — the MCP SDK's stdio transport, with the block's command, args and environment —
 * against the local stack: the `.mcp.json` block from the clone (its working directory), the
 * `--prefix` block from a directory of its own. In a clone `svc` is not on PATH; these must work.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, repoRoot } from '../packages/cli/test/helpers.ts';
import { freshConfigDir } from './support/mcp.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});

interface ServerBlock {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The `mcpServers.svc` blocks of docs/mcp.md that run the clone's CLI through npx. */
function documentedBlocks(): ServerBlock[] {
  const page = readFileSync(join(repoRoot, 'docs', 'mcp.md'), 'utf8');
  return [...page.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((match) => JSON.parse(match[1] ?? '') as { mcpServers?: { svc?: ServerBlock } })
    .flatMap((config) => (config.mcpServers?.svc?.command === 'npx' ? [config.mcpServers.svc] : []));
}

async function toolsOf(block: ServerBlock, cwd: string): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: block.command,
    args: block.args.map((arg) => arg.replace('/path/to/preview-composition-service', repoRoot)),
    cwd,
    env: {
      // An agent client's PATH: the system's, without this clone's node_modules/.bin.
      PATH: (process.env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => !dir.includes('node_modules'))
        .join(delimiter),
      HOME: tmpdir(),
      XDG_CONFIG_HOME: freshConfigDir(),
      ...block.env,
      SVC_API_URL: stack.apiUrl,
    },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'svc-docs-config', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const read = await client.callTool({ name: 'catalog_read', arguments: {} });
    expect(read.isError).not.toBe(true);
    expect(JSON.stringify(read.structuredContent)).toContain('"demo"');
    return tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('docs/mcp.md client configurations', () => {
  it('documents the npx forms: .mcp.json run in the clone, and --prefix for clients that start elsewhere', () => {
    expect(documentedBlocks().map((block) => block.args)).toEqual([
      ['--no', 'svc', 'mcp', '--allow-writes'],
      ['--no', '--prefix', '/path/to/preview-composition-service', 'svc', 'mcp'],
    ]);
  });

  it('.mcp.json, started in the clone, serves the tools with writes allowed', async () => {
    const [inClone] = documentedBlocks();
    const tools = await toolsOf(inClone as ServerBlock, repoRoot);
    expect(tools).toEqual(expect.arrayContaining(['pr_preview_read', 'composition_create']));
  }, 60_000);

  it('the --prefix block, started from another directory, serves the read tools', async () => {
    const [, elsewhere] = documentedBlocks();
    const tools = await toolsOf(elsewhere as ServerBlock, mkdtempSync(join(tmpdir(), 'svc-agent-')));
    expect(tools).toContain('pr_preview_read');
    expect(tools).not.toContain('composition_create');
  }, 60_000);
});
