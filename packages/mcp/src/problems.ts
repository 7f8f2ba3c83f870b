/** Problems the adapter finds itself, in the API's problem shape; each code is described in docs/mcp.md. */
import { ApiError, problemBuilder } from '@svc/client/errors';
import type { ProblemBody } from '@svc/core';

export const McpCode = {
  InvalidArguments: 'invalid_arguments',
  UnknownTool: 'unknown_tool',
  WritesDisabled: 'writes_disabled',
  ConfirmationInvalid: 'confirmation_invalid',
  ConfirmationExpired: 'confirmation_expired',
  ConfirmationStale: 'confirmation_stale',
  GenerationMismatch: 'generation_mismatch',
  Internal: 'mcp_internal_error',
} as const;
export type McpCode = (typeof McpCode)[keyof typeof McpCode];

const titles: Record<McpCode, string> = {
  invalid_arguments: 'Invalid arguments',
  unknown_tool: 'Unknown tool',
  writes_disabled: 'Writes are not allowed',
  confirmation_invalid: 'Confirmation invalid',
  confirmation_expired: 'Confirmation expired',
  confirmation_stale: 'Composition changed since the confirmation',
  generation_mismatch: 'Generation mismatch',
  mcp_internal_error: 'Internal error of the MCP adapter',
};

export const mcpProblem = problemBuilder<McpCode>('mcp.md', titles);

export function mcpError(code: McpCode, detail: string, errors: ProblemBody['errors'] = []): ApiError {
  return new ApiError(mcpProblem(code, detail, errors));
}
