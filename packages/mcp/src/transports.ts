/** The two ways agents reach the tools: stdio (`svc mcp`) and stateless Streamable HTTP (the API's `/mcp`). */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type AdapterOptions, mcpServer } from './server.ts';

/** Serves one agent on this process's stdin and stdout until the agent closes stdin. */
export async function serveStdio(options: AdapterOptions): Promise<void> {
  const server = mcpServer(options);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
}

/**
 * Answers one MCP POST: a fresh server and transport per request, no session kept, answers as
 * JSON rather than a stream — what a function behind an HTTP gateway can serve.
 */
export async function handleHttp(request: Request, options: AdapterOptions): Promise<Response> {
  const server = mcpServer(options);
  // No session id generator: stateless.
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
