import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  catalogOperations,
  compositionOperations,
  draftOperations,
  forgeOperations,
  frontendOperations,
  insightOperations,
  installationOperations,
  isOpen,
  type OperationTable,
  operations,
  pathParamNames,
  peopleOperations,
  serviceOperations,
  signInOperations,
  sourceOperations,
} from './index.ts';
import { derivedProblems } from './problems.ts';
import { pageOf } from './query.ts';

const table: OperationTable = operations;
const tables = [
  serviceOperations,
  signInOperations,
  compositionOperations,
  insightOperations,
  catalogOperations,
  sourceOperations,
  peopleOperations,
  draftOperations,
  frontendOperations,
  installationOperations,
  forgeOperations,
];

describe('the operations', () => {
  it('keep every declaration: no operationId is declared twice', () => {
    const declared = tables.flatMap((table) => Object.keys(table));
    expect(declared.length).toBe(new Set(declared).size);
    expect(Object.keys(operations).sort()).toEqual(declared.sort());
  });

  it('declare each method and path once', () => {
    const routes = Object.values(table).map((o) => `${o.method} ${o.path}`);
    expect(routes.length).toBe(new Set(routes).size);
  });

  it('give every path segment of a /v1 operation a rule, and no rule without a segment', () => {
    for (const [id, operation] of Object.entries(table)) {
      const names = pathParamNames(operation.path).sort();
      if (isOpen(operation)) {
        expect(operation.path.startsWith('/v1/'), id).toBe(false);
        expect(names, id).toEqual([]);
      } else {
        expect(operation.path.startsWith('/v1/'), id).toBe(true);
        expect(Object.keys(operation.params ?? {}).sort(), id).toEqual(names);
      }
    }
  });
});

describe('the problems an operation lists', () => {
  it('are only its own: none its kind answers anyway, none twice', () => {
    for (const [id, operation] of Object.entries(table)) {
      const listed = operation.errors ?? [];
      const derived = derivedProblems(operation);
      expect(
        listed.filter((code) => derived.includes(code)),
        `${id} lists problems its kind answers anyway`,
      ).toEqual([]);
      expect(listed.length, `${id} lists a problem twice`).toBe(new Set(listed).size);
    }
  });

  it('include what the binding answers before the handler: a declared header refused, a body, a segment', () => {
    const create = derivedProblems(compositionOperations.createComposition);
    expect(create).toEqual(
      expect.arrayContaining(['invalid_idempotency_key', 'malformed_json', 'validation_failed']),
    );
    const stop = derivedProblems(forgeOperations.stopForgePreview);
    expect(stop).toEqual(
      expect.arrayContaining(['unsupported_media_type', 'payload_too_large', 'not_found']),
    );
    expect(derivedProblems(compositionOperations.getComposition)).not.toContain('rate_limited');
  });
});

describe('query parameters', () => {
  const list = compositionOperations.listCompositions.query;

  it('type what the query carries as text', () => {
    expect(v.parse(list, { limit: '5', after: 'abc_-1', project: 'demo' })).toEqual({
      limit: 5,
      after: 'abc_-1',
      project: 'demo',
    });
    const logs = insightOperations.getComponentLogs.query;
    expect(v.parse(logs, { previous: '' }).previous).toBe(true);
    expect(v.parse(logs, { previous: 'false', tail_lines: '10' })).toEqual({
      previous: false,
      tail_lines: 10,
    });
  });

  it('refuse a bad value with one message per parameter, and ignore unknown ones', () => {
    const messages = (query: Record<string, string>) =>
      v.safeParse(list, query).issues?.map((issue) => issue.message) ?? [];
    expect(messages({ limit: '0' })).toEqual(['must be an integer from 1 to 200']);
    expect(messages({ limit: '1e2' })).toEqual(['must be an integer from 1 to 200']);
    expect(messages({ after: '' })).toEqual(['must be a next_cursor value from a previous page']);
    expect(messages({ project: 'Not_A_Name' })).toEqual(['must be a lowercase DNS label']);
    expect(messages({ colour: 'blue' })).toEqual([]);
    expect(v.safeParse(insightOperations.getComponentLogs.query, { previous: 'yes' }).success).toBe(false);
  });

  it('page with the default size unless told', () => {
    expect(pageOf({})).toEqual({ limit: 50, after: null });
    expect(pageOf({ limit: 7, after: 'x' })).toEqual({ limit: 7, after: 'x' });
  });
});
