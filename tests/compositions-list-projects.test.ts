/**
 * A caller who reads some projects lists their compositions, newest first, by reading those
 * projects' partitions: a page costs the same however many compositions other projects hold
 * (bench:scale found the list filtered out of everyone's reading on until its page was full).
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifestWithoutMessaging } from '@svc/local/demo';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { beforeAll, describe, expect, it } from 'vitest';

let stack: Stack;
let admin: HttpClient;
let reader: HttpClient;
useTestStack({ authMode: Auth.AuthMode.Token, forge: false, worker: false }, async (started) => {
  stack = started.stack;
  admin = httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token('admin', 'admin')}` });
  const grants = ['demo', 'third'].map((project) => ({ role: 'viewer' as const, project, repository: null }));
  reader = httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token('reader', grants)}` });
});

/** Items the table's Queries read (before any filter), counted on the SDK client the API uses. */
let scanned = 0;
beforeAll(() => {
  stack.functionClients.api.dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const count = (result.output as { ScannedCount?: number }).ScannedCount;
      if (context.commandName === 'QueryCommand' && count !== undefined) scanned += count;
      return result;
    },
    { step: 'initialize', name: 'testScannedCount' },
  );
});

async function create(project: string): Promise<string> {
  const { status, body } = await admin.post('/v1/compositions', {
    project,
    baseline: 'staging',
    name: 'listed',
    overrides: {},
  });
  expect(status, JSON.stringify(body)).toBe(202);
  return body.id;
}

async function pages(client: HttpClient, limit: number): Promise<string[][]> {
  const all: string[][] = [];
  let after: string | null = null;
  do {
    const query: string = `?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const { status, body } = await client.get(`/v1/compositions${query}`);
    expect(status, JSON.stringify(body)).toBe(200);
    all.push(body.items.map((c: { id: string }) => c.id));
    after = body.next_cursor;
  } while (after);
  return all;
}

describe('the composition list of a caller who reads some projects', () => {
  const readable: string[] = [];
  beforeAll(async () => {
    for (const project of ['other', 'third']) {
      expect((await admin.post('/v1/catalog/apply', demoManifestWithoutMessaging(project))).status).toBe(200);
    }
    for (let i = 0; i < 9; i++) {
      const project = ['demo', 'other', 'third'][i % 3] as string;
      const id = await create(project);
      if (project !== 'other') readable.push(id);
    }
    // The newest compositions of all are of a project the reader cannot see.
    for (let i = 0; i < 40; i++) await create('other');
  });

  it('pages through its projects newest first, each once, as the whole list orders them', async () => {
    const paged = await pages(reader, 2);
    expect(paged.map((page) => page.length)).toEqual([2, 2, 2]);
    expect(new Set(paged.flat())).toEqual(new Set(readable));
    const everyone = (await pages(admin, 200)).flat();
    expect(paged.flat()).toEqual(everyone.filter((id) => readable.includes(id)));
  });

  it('reads at most a page and one from each of its projects, not the compositions of the others', async () => {
    scanned = 0;
    const { body } = await reader.get('/v1/compositions?limit=2');
    expect(body.items).toHaveLength(2);
    // At least the page itself: a counter that saw no query would pass the bound alone.
    expect(scanned).toBeGreaterThanOrEqual(2);
    expect(scanned).toBeLessThanOrEqual(2 * 3);
  });

  it("refuses its cursor on another caller's list, which is another list", async () => {
    const { body } = await reader.get('/v1/compositions?limit=2');
    const answer = await admin.get(`/v1/compositions?limit=2&after=${encodeURIComponent(body.next_cursor)}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_query', errors: [{ path: 'after' }] });
  });
});
