/**
 * The MCP adapter: the service's tools for AI agents, defined once and served over stdio by
 * `svc mcp` and over Streamable HTTP by the API's `/mcp` (docs/mcp.md).
 */
export type { Transport } from '@svc/client';
export { confirmations } from './confirmation.ts';
export { handleHttp, serveStdio } from './transports.ts';
