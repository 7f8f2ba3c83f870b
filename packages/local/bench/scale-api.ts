/**
 * The API side of `bench:scale`: each read a person or a pipeline makes, next to its floor on the
 * same table at the same moment — a bare Hono route doing the one DynamoDB request the read cannot
 * do without (a consistent GetItem of the composition; one Query of a page of the list index).
 * Targets run in alternating rounds so machine noise hits a read and its floor alike.
 */
import type { Server } from 'node:http';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { listenNode } from '@svc/api';
import { Entities } from '@svc/aws';
import { Auth, Compositions, defaultPageSize, maxPageSize, Resources } from '@svc/core';
import { Hono } from 'hono';
import type { Stack } from '../src/stack.ts';
import { type LoadResult, load } from './load.ts';

export interface ApiFigure {
  name: string;
  /** The target this one is compared with (its floor), by name; null for a floor itself. */
  floor: string | null;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface FloorServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** The floors: `/get/:id` (one consistent GetItem) and `/list?limit=` (one Query of the list index). */
export async function startFloorServer(stack: Stack): Promise<FloorServer> {
  const floor = new Hono();
  const { documents } = stack.clients;
  const tableName = stack.resources.tableName;
  floor.get('/get/:id', async (c) => {
    const { Item } = await documents.send(
      new GetCommand({
        TableName: tableName,
        Key: Entities.Composition.key(c.req.param('id')),
        ConsistentRead: true,
      }),
    );
    return Item ? c.json(Item) : c.json({ error: 'not found' }, 404);
  });
  const listed = Entities.Composition.listed.query();
  const list = Resources.table.globalIndexes.find((index) => index.name === listed.index);
  floor.get('/list', async (c) => {
    const { Items } = await documents.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: list?.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': list?.partitionKey ?? '' },
        ExpressionAttributeValues: { ':pk': listed.partition },
        ScanIndexForward: !listed.newestFirst,
        // The list reads one item more than it shows, to know whether there is a next page.
        Limit: Number(c.req.query('limit') ?? defaultPageSize) + 1,
      }),
    );
    return c.json({ items: Items ?? [] });
  });
  const server: Server = await listenNode(floor.fetch, '127.0.0.1', 0);
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What a level's reads are measured on: a composition to read, and how many are listed. */
export interface Sample {
  id: string;
  live: number;
}

interface Target {
  name: string;
  floor: string | null;
  run(seconds: number): Promise<LoadResult>;
}

/**
 * A cursor from the middle of the composition list of `live` (null when it has one page), read by
 * pages of the largest size up to there: a cursor names a position in the list, not a page, so it
 * serves any page size.
 */
async function middleCursor(apiUrl: string, live: number): Promise<string | null> {
  let after: string | null = null;
  let middle: string | null = null;
  for (let read = 0; read < live / 2; ) {
    const query: string = `limit=${maxPageSize}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const page = (await (await fetch(`${apiUrl}/v1/compositions?${query}`)).json()) as {
      items: unknown[];
      next_cursor: string | null;
    };
    if (!page.next_cursor) break;
    read += page.items.length;
    after = page.next_cursor;
    middle = after;
  }
  return middle;
}

/** A closed loop over an in-process call, shaped like load.ts's HTTP one. */
async function loop(call: () => Promise<unknown>, concurrency: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await call().catch(() => errors++);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const elapsed = (performance.now() - started) / 1000;
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

/** Every read measured at a level, for the composition `id`, with the middle pages' cursors. */
async function targets(
  stack: Stack,
  floor: FloorServer,
  level: Sample,
  concurrency: number,
): Promise<Target[]> {
  const api = stack.apiUrl;
  const id = level.id;
  const middle = await middleCursor(api, level.live);
  const http =
    (url: string) =>
    (seconds: number): Promise<LoadResult> =>
      load({ url, concurrency, seconds, expectStatus: 200 });
  const after = (cursor: string | null) => (cursor ? `after=${encodeURIComponent(cursor)}` : '');
  // A viewer of a project with no compositions lists without naming it, among everyone else's.
  const otherViewer = Auth.anonymousIdentity([{ role: 'viewer', project: 'bench-other', repository: null }]);
  const useCase = (identity: Auth.Identity) => (seconds: number) =>
    loop(
      () =>
        Compositions.list(
          stack.workerDeps,
          identity,
          { project: null },
          { limit: defaultPageSize, after: null },
        ),
      concurrency,
      seconds,
    );
  const getFloor = 'floor: one GetItem';
  const listFloor = 'floor: one Query of 51';
  const pageFloor = 'floor: one Query of 201';
  const consoleFloor = 'JSON list of 200';
  const adminList = 'list (use case, every project readable)';
  return [
    { name: getFloor, floor: null, run: http(`${floor.url}/get/${id}`) },
    { name: 'status', floor: getFloor, run: http(`${api}/v1/compositions/${id}/status`) },
    { name: 'get', floor: getFloor, run: http(`${api}/v1/compositions/${id}`) },
    { name: listFloor, floor: null, run: http(`${floor.url}/list`) },
    { name: 'list, first page', floor: listFloor, run: http(`${api}/v1/compositions`) },
    { name: 'list ?project=demo', floor: listFloor, run: http(`${api}/v1/compositions?project=demo`) },
    { name: 'list, middle page', floor: listFloor, run: http(`${api}/v1/compositions?${after(middle)}`) },
    { name: pageFloor, floor: null, run: http(`${floor.url}/list?limit=${maxPageSize}`) },
    { name: consoleFloor, floor: pageFloor, run: http(`${api}/v1/compositions?limit=${maxPageSize}`) },
    { name: 'console list page', floor: consoleFloor, run: http(`${api}/console/compositions`) },
    {
      name: 'console, middle page',
      floor: consoleFloor,
      run: http(`${api}/console/compositions?${after(middle)}`),
    },
    { name: adminList, floor: null, run: useCase(Auth.devIdentity) },
    { name: 'list (use case, a viewer of one other project)', floor: adminList, run: useCase(otherViewer) },
  ];
}

/**
 * Every target for `seconds` in each of `rounds` alternating rounds, `concurrency` clients; the
 * median round's throughput and the median of the rounds' p50 and p99.
 */
export async function measureApi(
  stack: Stack,
  floor: FloorServer,
  level: Sample,
  options: { concurrency: number; seconds: number; rounds: number },
): Promise<ApiFigure[]> {
  const list = await targets(stack, floor, level, options.concurrency);
  for (const target of list) await target.run(0.3);
  const results = new Map<string, LoadResult[]>(list.map((target) => [target.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const target of list) results.get(target.name)?.push(await target.run(options.seconds));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return list.map((target) => {
    const runs = results.get(target.name) ?? [];
    return {
      name: target.name,
      floor: target.floor,
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      errors: runs.reduce((sum, r) => sum + r.errors, 0),
    };
  });
}
