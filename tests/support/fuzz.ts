/**
 * A property-based campaign against every operation of the API's own OpenAPI document: generated
 * paths, query strings, headers and bodies (near-valid ones from the operation's request schema,
 * mutated ones, arbitrary JSON, garbage), sent one at a time to a running stack. Every answer must
 * be below 500, every refusal a problem+json with a status the document lists for the operation,
 * and a refused request must leave the table's item count and the job queue as they were.
 */
import { request as httpRequest } from 'node:http';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Stack } from '@svc/local';
import fc from 'fast-check';

type Json = Record<string, unknown>;
type Schema = Json & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  body: Schema | null;
  /** The body's media type: JSON for /v1, a form for the sign-in endpoints. */
  bodyType: 'application/json' | 'application/x-www-form-urlencoded';
  /** Statuses the document lists for the operation, each with the media types it may answer in. */
  statuses: Map<number, string[]>;
}

interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Values the stack holds, so generated requests reach past "not found" as often as not. */
export interface Known {
  [parameter: string]: readonly string[];
}

/** The operations of an OpenAPI 3.1 document. */
export function operationsOf(document: Json): Operation[] {
  const paths = document.paths as Record<string, Record<string, Json>>;
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const content = (operation.requestBody as Json | undefined)?.content as
        | Record<string, Json>
        | undefined;
      const form = content?.['application/x-www-form-urlencoded']?.schema as Schema | undefined;
      const responses = operation.responses as Record<string, { content?: Json }>;
      return {
        method: method.toUpperCase(),
        path,
        operationId: String(operation.operationId),
        parameters: (operation.parameters as Parameter[] | undefined) ?? [],
        body: (content?.['application/json']?.schema as Schema | undefined) ?? form ?? null,
        bodyType: form ? 'application/x-www-form-urlencoded' : 'application/json',
        statuses: new Map(
          Object.entries(responses).map(([status, r]) => [Number(status), Object.keys(r.content ?? {})]),
        ),
      };
    }),
  );
}

/** Strings that mean something to this service: names, images, durations, revisions, URLs. */
const meaningful = [
  'demo',
  'staging',
  'service-a',
  'service-b',
  'service-c',
  'service-d',
  'registry.example.com/demo/service-b:2.0.0',
  `registry.example.com/demo/service-b@sha256:${'a'.repeat(64)}`,
  'nginx:1',
  '1h',
  'svc-cli',
  'S256',
  'code',
  'http://127.0.0.1:53682/callback',
  'authorization_code',
  'refresh_token',
  'alice',
  '30m',
  '25h',
  'a'.repeat(40),
  'acme/shop',
  'refs/heads/main',
  'https://web.example.com/',
  'javascript:alert(1)',
  '/health',
  '//127.0.0.1:9299/x',
  // Return addresses a browser resolves off-site, names another project holds, places previews may not go.
  '/.//127.0.0.1:9299/x',
  '/%2e//127.0.0.1:9299/x',
  '/console/..//127.0.0.1:9299/x',
  'demo-org/service-b',
  'local-2',
  'kube-system',
  'preview.localhost',
  'metadata.google.internal',
  '169.254.169.254',
  '__proto__',
  'constructor',
  '',
];

const interestingString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...meaningful) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 300, maxLength: 3000 }) },
);

function stringFor(schema: Schema): fc.Arbitrary<string> {
  if (schema.pattern) {
    try {
      const matching = fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((s) => s.length <= (schema.maxLength ?? 200));
      return fc.oneof({ weight: 3, arbitrary: matching }, { weight: 1, arbitrary: interestingString });
    } catch {
      // A pattern fast-check cannot generate from (lookarounds): the meaningful strings stand in.
    }
  }
  return interestingString;
}

function numberFor(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1_000;
  const max = schema.maximum ?? 1_000_000;
  const inRange = integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
  return fc.oneof(
    { weight: 4, arbitrary: inRange },
    { weight: 1, arbitrary: fc.constantFrom(min - 1, max + 1, 0, -1, 2 ** 53, 1.5) },
  );
}

/** A value the schema describes, mostly; anything JSON now and then. */
function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (options?.length) return fc.oneof(...options.map((option) => fromSchema(option, depth + 1)));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => fromSchema({ ...schema, type }, depth)));
  switch (types[0]) {
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) {
        const values =
          typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
        return fc.dictionary(
          fc.oneof(fc.constantFrom(...meaningful), fc.string({ maxLength: 12 })),
          fromSchema(values, depth + 1),
          {
            maxKeys: 4,
          },
        );
      }
      const entries = Object.fromEntries(
        properties.map(([key, value]) => [key, fromSchema(value, depth + 1)]),
      );
      return fc.record(entries, { requiredKeys: schema.required ?? [] });
    }
    case 'array':
      return fc.array(fromSchema(schema.items, depth + 1), { maxLength: 4 });
    case 'string':
      return stringFor(schema);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A near-valid body broken in one of the ways careless and hostile callers break bodies. */
function mutated(body: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      body,
      fc.nat(),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra'),
    )
    .map(([value, pick, replacement, key]) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return [value];
      const copy: Json = { ...(value as Json) };
      const keys = Object.keys(copy);
      const target = keys[pick % Math.max(keys.length, 1)];
      switch (pick % 5) {
        case 0:
          if (target) delete copy[target];
          return copy;
        case 1:
          if (target) copy[target] = replacement;
          return copy;
        case 2:
          if (target) copy[target] = [copy[target]];
          return copy;
        case 3: {
          // Parsed, so that `__proto__` becomes an own key as it does in a request body.
          const rest = JSON.stringify(copy).slice(1, -1);
          const entry = `${JSON.stringify(key)}:${JSON.stringify(replacement ?? null)}`;
          return JSON.parse(`{${rest ? `${entry},${rest}` : entry}}`);
        }
        default:
          return [copy];
      }
    });
}

const nested = (levels: number, inner: string) => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

/** A form body: the fields of a near-valid record, url-encoded; odd encodings now and then. */
function formFor(schema: Schema | null): fc.Arbitrary<string | undefined> {
  const fields = fromSchema(schema ?? undefined).map((value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? new URLSearchParams(
          Object.entries(value as Json).map(([k, v]): [string, string] => [
            k,
            typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
          ]),
        ).toString()
      : String(value),
  );
  return fc.oneof(
    { weight: 8, arbitrary: fields },
    { weight: 2, arbitrary: fc.string({ maxLength: 80 }) },
    { weight: 1, arbitrary: fc.constantFrom('%ZZ=%', 'a=1&a=2&a=3', `x=${'y'.repeat(5000)}`, '=&=&&') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function bodyFor(operation: Operation): fc.Arbitrary<string | undefined> {
  const schema = operation.body;
  if (operation.bodyType === 'application/x-www-form-urlencoded') return formFor(schema);
  const nearValid = fromSchema(schema ?? undefined);
  const json = (value: fc.Arbitrary<unknown>) => value.map((v) => JSON.stringify(v) ?? 'null');
  return fc.oneof(
    { weight: schema ? 8 : 1, arbitrary: json(nearValid) },
    { weight: schema ? 6 : 1, arbitrary: json(mutated(nearValid)) },
    { weight: 2, arbitrary: json(fc.jsonValue({ maxDepth: 4 })) },
    { weight: 1, arbitrary: fc.constantFrom(nested(33, '{}'), nested(100_000, '1'), nested(31, '[]')) },
    { weight: 2, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: json(nearValid).map((text) => text.slice(0, Math.max(1, text.length - 3))) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** A path segment: a known value mostly, else a label, arbitrary text (encoded) or something odd. */
function segmentFor(name: string, known: Known): fc.Arbitrary<string> {
  const values = known[name] ?? [];
  return fc.oneof(
    ...(values.length ? [{ weight: 8, arbitrary: fc.constantFrom(...values) }] : []),
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom('%2e%2e', '..%2F..', '%00', 'a'.repeat(300), '%ZZ', 'C-UPPER') },
  );
}

const headerText = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 200,
});
const headerName = fc.stringMatching(/^x-[a-z0-9-]{1,20}$/);

/** Credentials a campaign's requests carry: mostly these (a stack's own), else junk. */
export type Credentials = readonly Record<string, string>[];

function headersFor(operation: Operation, credentials: Credentials): fc.Arbitrary<Record<string, string>> {
  const junk = fc
    .oneof(headerText, fc.constant('Bearer svc_not_a_token'))
    .map((authorization) => ({ authorization }));
  const credential = credentials.length
    ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...credentials) }, { weight: 1, arbitrary: junk })
    : junk;
  return fc
    .record(
      {
        'content-type': fc.oneof(
          { weight: 12, arbitrary: fc.constant(operation.bodyType) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              'application/json; charset=utf-8',
              'text/plain',
              'application/x-www-form-urlencoded',
              'APPLICATION/JSON',
              '',
            ),
          },
        ),
        'idempotency-key': fc.oneof(headerText, fc.constantFrom('', 'k'.repeat(129), 'retry-1')),
        'x-request-id': headerText,
        credential,
        extra: fc.tuple(headerName, headerText),
      },
      { requiredKeys: operation.body ? ['content-type'] : [] },
    )
    .map(({ extra, credential: carried, ...headers }) => {
      const all: Record<string, string> = Object.fromEntries(
        Object.entries({ ...headers, ...carried }).filter(([, v]) => v !== undefined),
      ) as Record<string, string>;
      if (extra) all[extra[0]] = extra[1];
      return all;
    });
}

/** Long-poll parameters are held to a second: the campaign measures the service, not its waits. */
const longPoll: Record<string, fc.Arbitrary<string>> = {
  wait_seconds: fc.constantFrom('0', '1', '-1', 'x', '21'),
};

function queryFor(operation: Operation): fc.Arbitrary<string> {
  const declared = operation.parameters.filter((p) => p.in === 'query');
  const value = (parameter: Parameter) =>
    longPoll[parameter.name] ??
    fc.oneof(
      {
        weight: 3,
        arbitrary: fromSchema(parameter.schema).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
      },
      { weight: 2, arbitrary: interestingString },
    );
  const pairs = declared.map((parameter) =>
    fc.option(
      fc
        .array(value(parameter), { minLength: 1, maxLength: 2 })
        .map((values) => values.map((v) => [parameter.name, v] as const)),
      { freq: 2 },
    ),
  );
  const unknown = fc.option(fc.tuple(fc.stringMatching(/^[a-z_]{1,12}$/), interestingString), { freq: 3 });
  return fc.tuple(fc.tuple(...pairs), unknown).map(([chosen, extra]) => {
    const params = new URLSearchParams();
    for (const values of chosen) for (const [name, v] of values ?? []) params.append(name, v);
    if (extra) params.append(extra[0], extra[1]);
    const text = params.toString();
    return text ? `?${text}` : '';
  });
}

function requestsFor(
  operation: Operation,
  known: Known,
  credentials: Credentials = [],
): fc.Arbitrary<Request> {
  const names = [...operation.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string);
  return fc
    .record({
      segments: fc.tuple(...names.map((name) => segmentFor(name, known))),
      query: queryFor(operation),
      headers: headersFor(operation, credentials),
      body: operation.body || operation.method !== 'GET' ? bodyFor(operation) : fc.constant(undefined),
    })
    .map(({ segments, query, headers, body }) => {
      let path = operation.path;
      names.forEach((name, i) => {
        path = path.replace(`{${name}}`, segments[i] ?? '');
      });
      return {
        method: operation.method,
        path: `${path}${query}`,
        headers,
        body: operation.method === 'GET' ? undefined : body,
      };
    });
}

/** What a campaign saw: requests per operation and answers per status. */
export interface Figures {
  requests: number;
  byOperation: Record<string, number>;
  byStatus: Record<string, number>;
  elapsedMs: number;
}

function newFigures(): Figures {
  return { requests: 0, byOperation: {}, byStatus: {}, elapsedMs: 0 };
}

/**
 * The table's item count and the job queue's message count: what a refused request must not change.
 * Rate windows are left out: counting a failed sign-in is what such a refusal is meant to write.
 */
async function writesSnapshot(stack: Stack): Promise<{ items: number; jobs: number }> {
  let items = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stack.clients.documents.send(
      new ScanCommand({
        TableName: stack.resources.tableName,
        Select: 'COUNT',
        FilterExpression: 'item_type <> :rate',
        ExpressionAttributeValues: { ':rate': 'rate_window' },
        ExclusiveStartKey: start,
      }),
    );
    items += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  const { Attributes = {} } = await stack.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: stack.resources.jobQueueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const jobs = Object.values(Attributes).reduce((sum, n) => sum + Number(n), 0);
  return { items, jobs };
}

/**
 * One request on a connection of its own: a kept-alive connection the server closes as the client
 * reuses it fails as "other side closed", which would be a finding about the client, not the service.
 */
function send(baseUrl: string, request: Request): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${baseUrl}${request.path}`,
      {
        method: request.method,
        // Node sends a DELETE body without a length unless told one: a malformed request of ours.
        headers: {
          ...request.headers,
          ...(request.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(request.body)) }),
        },
        agent: false,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            type: String(incoming.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** Sends one request and checks the answer; throws (failing the property) with what went wrong. */
async function check(stack: Stack, operation: Operation, request: Request, figures: Figures): Promise<void> {
  const before = await writesSnapshot(stack);
  const response = await send(stack.apiUrl, request);
  const { text } = response;
  figures.requests++;
  figures.byOperation[operation.operationId] = (figures.byOperation[operation.operationId] ?? 0) + 1;
  figures.byStatus[response.status] = (figures.byStatus[response.status] ?? 0) + 1;
  const what = `${request.method} ${request.path.slice(0, 200)} → ${response.status} ${text.slice(0, 300)}`;
  if (response.status >= 500) throw new Error(`server error: ${what}`);
  if (response.status < 400) return;
  const types = operation.statuses.get(response.status);
  if (!types) {
    throw new Error(`status ${response.status} is not in the document for ${operation.operationId}: ${what}`);
  }
  const type = response.type.split(';')[0]?.trim() ?? '';
  if (!types.includes(type)) {
    throw new Error(`a ${response.status} in ${type || 'no media type'}, not ${types.join(' or ')}: ${what}`);
  }
  if (type === 'application/problem+json') {
    const problem = JSON.parse(text) as { status?: unknown; code?: unknown };
    if (problem.status !== response.status || typeof problem.code !== 'string') {
      throw new Error(`a problem body that does not match its status: ${what}`);
    }
  }
  const after = await writesSnapshot(stack);
  if (after.items !== before.items || after.jobs !== before.jobs) {
    throw new Error(
      `a refused request wrote: items ${before.items} → ${after.items}, jobs ${before.jobs} → ${after.jobs}: ${what}`,
    );
  }
}

function printFigures(figures: Figures, seed: number, runs: number): void {
  const statuses = Object.entries(figures.byStatus)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  console.log(
    [
      `fuzz: ${figures.requests} requests over ${Object.keys(figures.byOperation).length} operations (${runs} runs each, seed ${seed}) in ${(figures.elapsedMs / 1000).toFixed(1)} s`,
      `fuzz: statuses ${statuses}`,
    ].join('\n'),
  );
}

/**
 * One campaign: `runs` generated requests at each operation, each checked; the figures printed.
 * Every operation must have been sent its `runs` requests.
 */
export async function campaign(
  stack: Stack,
  operations: readonly Operation[],
  options: { known: Known; credentials?: Credentials; runs: number; seed: number },
): Promise<Figures> {
  const figures = newFigures();
  const started = performance.now();
  for (const [index, operation] of operations.entries()) {
    await fc.assert(
      fc.asyncProperty(requestsFor(operation, options.known, options.credentials), (request) =>
        check(stack, operation, request, figures),
      ),
      { numRuns: options.runs, seed: options.seed + index, endOnFailure: true },
    );
  }
  figures.elapsedMs = performance.now() - started;
  printFigures(figures, options.seed, options.runs);
  return figures;
}
