/**
 * What a tool is: its name and words for the agent, an input schema (valibot, from the same
 * schemas the API validates with; the agent sees it as generated JSON Schema), what it may change,
 * which of its answer's fields carry outside text, and what it does through the REST API (the
 * typed client, as any client of the service).
 */
import type { ServiceClient } from '@svc/client';
import type * as v from 'valibot';
import type { Confirmations } from './confirmation.ts';
import type { FieldPath } from './untrusted.ts';

/** What calling the tool may do; sets its annotations and whether a read-only server offers it. */
export const Access = {
  /** Reads only; offered by every server. */
  Read: 'read',
  /** Creates; only with writes allowed. */
  Write: 'write',
  /** Changes or removes what exists; only with writes allowed, and only with a confirmation. */
  Destructive: 'destructive',
} as const;
export type Access = (typeof Access)[keyof typeof Access];

export interface ToolContext {
  /** The service's operations, called as the agent's identity through the host's transport. */
  client: ServiceClient;
  /** The agent session: what idempotency keys and confirmations are bound to (docs/mcp.md). */
  session: string;
  /** Signs and checks the confirmations of destructive tools. */
  confirmations: Confirmations;
}

export interface ToolOutcome {
  /** The one short line of text content: ours, never outside text. */
  summary: string;
  /** The structured content: a JSON object. */
  result: object;
}

type ObjectInput =
  | v.ObjectSchema<v.ObjectEntries, undefined>
  | v.StrictObjectSchema<v.ObjectEntries, undefined>;

export interface Tool<TInput extends ObjectInput = ObjectInput> {
  name: string;
  title: string;
  description: string;
  access: Access;
  /** True when repeating the same call changes nothing more (annotations' idempotentHint). */
  idempotent: boolean;
  input: TInput;
  /** Fields of the result holding text from outside the service (see untrusted.ts). */
  untrusted?: readonly FieldPath[];
  run(args: v.InferOutput<TInput>, context: ToolContext): Promise<ToolOutcome>;
}

/** Keeps each tool's `run` typed by its own input schema inside a list of tools. */
export function defineTool<TInput extends ObjectInput>(tool: Tool<TInput>): Tool {
  return tool as unknown as Tool;
}
