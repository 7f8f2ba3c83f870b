import { describe, expect, it } from 'vitest';
import { isOpen, type OperationTable, operations } from './index.ts';
import { openApiDocument } from './openapi.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON walked by path
type Json = Record<string, any>;
const table: OperationTable = operations;
const document = openApiDocument({ version: 'test' }) as Json;
const operationOf = (path: string, method: string): Json => document.paths[path][method];

describe('the OpenAPI document', () => {
  it('describes every operation of the contract at its path and method, by its operationId', () => {
    for (const [id, operation] of Object.entries(table)) {
      expect(operationOf(operation.path, operation.method)?.operationId, id).toBe(id);
    }
    const described = Object.values(document.paths).flatMap((methods) => Object.keys(methods as Json));
    expect(described.length).toBe(Object.keys(operations).length);
  });

  it('gives a query parameter the typed side of its schema, required where the schema requires it', () => {
    const list = operationOf('/v1/compositions', 'get').parameters;
    expect(list).toContainEqual({
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Page size (default 50, max 200).',
      schema: { type: 'integer', minimum: 1, maximum: 200 },
    });
    const resolve = operationOf('/v1/projects/{project}/sources/resolve', 'get').parameters as Json[];
    expect(resolve.filter((p) => p.in === 'query').map((p) => [p.name, p.required])).toEqual([
      ['repository', true],
      ['component', true],
      ['ref', true],
    ]);
    const logs = operationOf('/v1/compositions/{id}/components/{component}/logs', 'get').parameters as Json[];
    expect(logs.find((p) => p.name === 'previous')?.schema).toEqual({ type: 'boolean' });
  });

  it('names the permission of a /v1 operation, and the proof of one outside that takes no bearer token', () => {
    for (const operation of Object.values(table)) {
      const described = operationOf(operation.path, operation.method);
      if (isOpen(operation)) {
        expect(described.security).toEqual([]);
        expect(described['x-proof']).toBe(operation.proof);
      } else {
        expect(described['x-permission']).toBe(operation.permission);
        expect(described.responses['401']).toBeDefined();
      }
    }
  });

  it('answers 400 invalid_query wherever a query is read', () => {
    const create = operationOf('/v1/compositions', 'post');
    expect(create.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
    );
    expect(operationOf('/v1/compositions', 'get').responses['400'].description).toContain('invalid_query');
  });
});
