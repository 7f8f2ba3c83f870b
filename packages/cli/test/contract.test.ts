/**
 * The CLI and the MCP tools call the service through the typed client, by operationId: every
 * operation of the contract they are built with is one the server serves and documents at that
 * method and path, and neither writes a path of the service itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type OperationTable, operations } from '@svc/contract';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { expect, it } from 'vitest';
import { repoRoot } from './helpers.ts';

let stack: Stack;
useTestStack({}, (started) => {
  stack = started.stack;
});

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

it('calls only operations the server documents, at their methods and paths', async () => {
  const document = (await (await fetch(`${stack.apiUrl}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const table: OperationTable = operations;
  for (const [id, operation] of Object.entries(table)) {
    expect(document.paths[operation.path]?.[operation.method]?.operationId, id).toBe(id);
  }
  const served = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
  expect(served.length).toBe(Object.keys(table).length);
});

it('writes no path of the service in the CLI or the MCP tools: the contract has them', () => {
  const literal = /['"`]\/(v1|auth|healthz|version)\b/;
  const comment = /^\s*(\*|\/\/|\/\*)/;
  const offending = [join(repoRoot, 'packages', 'cli', 'src'), join(repoRoot, 'packages', 'mcp', 'src')]
    .flatMap(sources)
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !comment.test(line) && literal.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
  expect(offending).toEqual([]);
});
