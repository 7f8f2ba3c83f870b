/**
 * Counters for the cost benchmarks, attached from outside the code under measurement: AWS SDK
 * middleware on the clients, a counting wrapper around the ClusterPort, and the local cluster's
 * own fault rules (a 0 ms latency rule per verb and resource counts its hits).
 *
 * Every counted request also records its call site: the innermost frame in packages/aws (the
 * store method) and the innermost frame outside it (the caller in core, worker or api), so a count
 * points at the code that made it.
 */
import type { Cluster } from '@svc/core';

type ClusterPort = Cluster.ClusterPort;

/** Async stack traces reach back through the SDK's middleware to the caller only with room for them. */
Error.stackTraceLimit = 60;

interface Frame {
  file: string;
  fn: string;
}

function repoFrames(stack: string): Frame[] {
  const frames: Frame[] = [];
  for (const line of stack.split('\n')) {
    const match =
      /at (?:async )?(?:(\S+) \()?(?:file:\/\/)?[^()]*\/packages\/([^()]+?\.ts):(\d+):\d+\)?$/.exec(
        line.trim(),
      );
    if (!match?.[2] || match[2].includes('/bench/') || match[2].includes('node_modules')) continue;
    const name = match[1]?.replace(/^Object\./, '');
    // Anonymous functions (callbacks of Promise.all, map) are told apart by their line.
    frames.push({ file: match[2].replace('/src/', '/'), fn: name ?? `<anonymous:${match[3]}>` });
  }
  return frames;
}

/**
 * `caller ← its caller → store method` for the request being made now: the outermost frame of the
 * adapter package (the store method; inner ones are its middleware) and the two frames before it.
 */
function callSite(adapterDirectory: string): string {
  const frames = repoFrames(new Error().stack ?? '');
  const inAdapter = (f: Frame) => f.file.startsWith(`${adapterDirectory}/`);
  const callerIndex = frames.findIndex((f) => !inAdapter(f));
  // Anonymous adapter frames are its SDK middleware (failures.ts), not a store method.
  const adapter = (callerIndex === -1 ? frames : frames.slice(0, callerIndex))
    .filter((f) => inAdapter(f) && !f.fn.startsWith('<anonymous'))
    .at(-1);
  const caller = frames[callerIndex];
  const outer = frames[callerIndex + 1];
  const name = (f: Frame | undefined) => (f ? `${f.file}:${f.fn}` : '?');
  // The caller's caller too: helpers (requireComposition, enqueueNextStep, fence) are called from several places.
  const callers = outer
    ? `${name(caller)} ← ${outer.file === caller?.file ? outer.fn : name(outer)}`
    : name(caller);
  return adapter ? `${callers} → ${name(adapter)}` : callers;
}

/** A count per key, with optional sums beside it. */
class Tally<S extends string = never> {
  readonly counts = new Map<string, { count: number; sums: Partial<Record<S, number>> }>();

  add(key: string, sums: Partial<Record<S, number>> = {}): void {
    const entry = this.counts.get(key) ?? { count: 0, sums: {} };
    entry.count++;
    const totals: Partial<Record<S, number>> = entry.sums;
    for (const [name, value] of Object.entries(sums) as [S, number][]) {
      totals[name] = (totals[name] ?? 0) + value;
    }
    this.counts.set(key, entry);
  }

  reset(): void {
    this.counts.clear();
  }

  toJSON(): Counts<S> {
    return Object.fromEntries(this.counts);
  }
}

/** A Tally as plain data, as it crosses the process boundary. */
export type Counts<S extends string = never> = Record<
  string,
  { count: number; sums: Partial<Record<S, number>> }
>;

/** Every Tally of a meter as plain data. */
export type Snapshot<M> = {
  [K in keyof M as M[K] extends Tally<string> ? K : never]: M[K] extends Tally<infer S> ? Counts<S> : never;
};

export function snapshot<M extends object>(meter: M): Snapshot<M> {
  return JSON.parse(JSON.stringify(meter)) as Snapshot<M>;
}

type Middleware = (
  next: (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>,
  context: { commandName?: string },
) => (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>;

/** An AWS SDK client; its middleware stack is typed per client, so it is taken as the shape used here. */
interface MeteredClient {
  middlewareStack: object;
}

type MiddlewareStack = {
  add(middleware: Middleware, options: { step: 'initialize'; name: string; priority: 'high' }): void;
};

function addMeter(
  clients: MeteredClient | readonly MeteredClient[],
  name: string,
  measure: (
    operation: string,
    input: Record<string, unknown>,
  ) => {
    input?: Record<string, unknown>;
    done(output: Record<string, unknown> | undefined, ms: number): void;
  },
): void {
  for (const client of [clients].flat()) {
    (client.middlewareStack as MiddlewareStack).add(
      (next, context) => async (args) => {
        const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        const meter = measure(operation, args.input);
        const started = performance.now();
        try {
          const result = await next(meter.input ? { ...args, input: meter.input } : args);
          meter.done(result.output, performance.now() - started);
          return result;
        } catch (error) {
          meter.done(undefined, performance.now() - started);
          throw error;
        }
      },
      { step: 'initialize', name, priority: 'high' },
    );
  }
}

const capacityOperations = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);
const readOperations = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

interface Capacity {
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

type DynamoSums = 'rcu' | 'wcu' | 'tableUnits' | 'indexUnits' | 'items' | 'failed' | 'ms';

/** What a transaction writes, by item type: `composition+operation+event×2`. */
function transactionShape(input: Record<string, unknown>): string {
  const types = (
    (input.TransactItems as Record<string, { Item?: Record<string, unknown>; Key?: unknown }>[]) ?? []
  ).map((entry) => {
    const [kind, body] = Object.entries(entry)[0] ?? ['?', {}];
    const type = body.Item?.item_type;
    const name = typeof type === 'string' ? type : ((type as { S?: string } | undefined)?.S ?? 'item');
    return kind === 'Put' ? name : `${kind.toLowerCase()}:${name}`;
  });
  const counts = new Map<string, number>();
  for (const type of types) counts.set(type, (counts.get(type) ?? 0) + 1);
  return [...counts].map(([type, n]) => (n > 1 ? `${type}×${n}` : type)).join('+');
}

/**
 * An item's size by AWS's rules: attribute names and values in bytes (numbers about one byte per
 * two digits plus one), one byte for booleans and nulls, lists and maps three bytes plus one per
 * element. The item is the document client's input, before marshalling.
 */
function itemSize(item: Record<string, unknown>): number {
  const valueSize = (value: unknown): number => {
    if (value === null || typeof value === 'boolean') return 1;
    if (typeof value === 'string') return Buffer.byteLength(value);
    if (typeof value === 'number')
      return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').length / 2) + 1;
    if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueSize(v), 0);
    if (typeof value === 'object')
      return (
        3 +
        Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0)
      );
    return 0;
  };
  return Object.entries(item)
    .filter(([, v]) => v !== undefined)
    .reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}

/**
 * A transaction's table write capacity by AWS's rule: two units per KB of each item written. An
 * Update's item is not in the request; it counts as one KB (the only one, the supersede of an
 * operation, is smaller).
 */
function transactionTableUnits(input: Record<string, unknown>): number {
  const entries = (input.TransactItems as Record<string, { Item?: Record<string, unknown> }>[]) ?? [];
  return entries.reduce((sum, entry) => {
    const [kind, body] = Object.entries(entry)[0] ?? ['', {}];
    if (kind === 'ConditionCheck') return sum + 2;
    return sum + 2 * Math.max(1, Math.ceil((body.Item ? itemSize(body.Item) : 1024) / 1024));
  }, 0);
}

export interface DynamoMeter {
  /** By DynamoDB operation. */
  readonly operations: Tally<DynamoSums>;
  /** By call site and operation. */
  readonly sites: Tally<DynamoSums>;
  /** TransactWriteItems by the item types they write. */
  readonly transactions: Tally<'wcu'>;
  /** Capacity by where it was spent: the table or a global index, read or write. */
  readonly indexes: Tally<'units'>;
  reset(): void;
}

/**
 * Counts the client's requests by operation and call site, asking each for its consumed capacity
 * (DynamoDB Local reports it for successful requests; failed ones report none and are counted apart).
 */
export function meterDynamoDb(clients: MeteredClient | readonly MeteredClient[]): DynamoMeter {
  const meter: DynamoMeter = {
    operations: new Tally(),
    sites: new Tally(),
    transactions: new Tally(),
    indexes: new Tally(),
    reset() {
      this.operations.reset();
      this.sites.reset();
      this.transactions.reset();
      this.indexes.reset();
    },
  };
  addMeter(clients, 'benchDynamoMeter', (operation, input) => {
    const site = `${callSite('aws')} ${operation}`;
    const shape = operation === 'TransactWriteItems' ? transactionShape(input) : undefined;
    return {
      ...(capacityOperations.has(operation)
        ? { input: { ...input, ReturnConsumedCapacity: 'INDEXES' } }
        : {}),
      done(output, ms) {
        const consumed = output?.ConsumedCapacity as Capacity | Capacity[] | undefined;
        const list = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed];
        const indexUnits = list.reduce(
          (sum, c) =>
            sum +
            Object.values(c.GlobalSecondaryIndexes ?? {}).reduce((a, i) => a + (i.CapacityUnits ?? 0), 0),
          0,
        );
        // DynamoDB Local reports a transaction's table capacity as if it wrote only some of its items.
        const tableUnits =
          operation === 'TransactWriteItems' && output
            ? transactionTableUnits(input)
            : list.reduce((sum, c) => sum + (c.Table?.CapacityUnits ?? 0), 0);
        const units = tableUnits + indexUnits;
        const items =
          operation === 'TransactWriteItems' || operation === 'TransactGetItems'
            ? ((input.TransactItems as unknown[]) ?? []).length
            : operation === 'Query' || operation === 'Scan'
              ? ((output?.Items as unknown[]) ?? []).length
              : 1;
        const sums: Partial<Record<DynamoSums, number>> = {
          [readOperations.has(operation) ? 'rcu' : 'wcu']: units,
          tableUnits,
          indexUnits: units - tableUnits,
          items,
          failed: output ? 0 : 1,
          ms,
        };
        meter.operations.add(operation, sums);
        meter.sites.add(site, sums);
        if (shape !== undefined) meter.transactions.add(shape, { wcu: units });
        const kind = readOperations.has(operation) ? 'read' : 'write';
        if (tableUnits) meter.indexes.add(`table ${kind}`, { units: tableUnits });
        for (const capacity of list) {
          for (const [index, used] of Object.entries(capacity.GlobalSecondaryIndexes ?? {})) {
            if (used.CapacityUnits) meter.indexes.add(`${index} ${kind}`, { units: used.CapacityUnits });
          }
        }
      },
    };
  });
  return meter;
}

type QueueSums = 'messages' | 'bytes' | 'failed' | 'ms';

export interface QueueMeter {
  readonly operations: Tally<QueueSums>;
  readonly sites: Tally<QueueSums>;
  reset(): void;
}

/** Counts SQS or SNS requests by operation and call site, with messages sent and received. */
export function meterQueue(clients: MeteredClient | readonly MeteredClient[], name: string): QueueMeter {
  const meter: QueueMeter = {
    operations: new Tally(),
    sites: new Tally(),
    reset() {
      this.operations.reset();
      this.sites.reset();
    },
  };
  addMeter(clients, name, (operation, input) => {
    const site = `${callSite('aws')} ${operation}`;
    return {
      done(output, ms) {
        const sent =
          operation === 'SendMessage' || operation === 'Publish'
            ? [String(input.MessageBody ?? input.Message ?? '')]
            : operation === 'SendMessageBatch'
              ? ((input.Entries as { MessageBody?: string }[]) ?? []).map((e) => e.MessageBody ?? '')
              : [];
        const received =
          operation === 'ReceiveMessage'
            ? ((output?.Messages as { Body?: string }[]) ?? []).map((m) => m.Body ?? '')
            : [];
        const bodies = [...sent, ...received];
        const sums: Partial<Record<QueueSums, number>> = {
          messages: bodies.length,
          bytes: bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0),
          failed: output ? 0 : 1,
          ms,
        };
        meter.operations.add(operation, sums);
        meter.sites.add(site, sums);
      },
    };
  });
  return meter;
}

export interface ClusterMeter {
  /** By ClusterPort method and caller. */
  readonly calls: Tally<'ms'>;
  reset(): void;
}

/** The ClusterPort with every method call counted by its caller (file:function). */
export function meterCluster(cluster: ClusterPort): { cluster: ClusterPort; meter: ClusterMeter } {
  const meter: ClusterMeter = { calls: new Tally(), reset: () => meter.calls.reset() };
  const metered = new Proxy(cluster, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const site = `${callSite('kube')} ${String(property)}`;
        const started = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          meter.calls.add(site, { ms: performance.now() - started });
        }
      };
    },
  });
  return { cluster: metered, meter };
}

/** Resources the service touches; anything else shows up as the difference to the total. */
const kubeResources = [
  'deployments',
  'services',
  'configmaps',
  'httproutes',
  'pods',
  'replicasets',
  'endpoints',
  'namespaces',
  'secrets',
  'serviceaccounts',
  'events',
];
const kubeVerbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

export interface KubeRequestMeter {
  /** Requests by `verb resource` since the last reset, plus `total` (every API request). */
  read(): Promise<Record<string, number>>;
  reset(): Promise<void>;
  remove(): Promise<void>;
}

/**
 * Counts the local cluster's API requests by verb and resource through its fault endpoint: one
 * 0 ms latency rule per pair (rules never delay at 0 ms) and one matching everything.
 */
export async function meterKubeRequests(clusterUrl: string): Promise<KubeRequestMeter> {
  const faults = `${clusterUrl}/_faults`;
  const rules = new Map<string, string>();
  async function install(): Promise<void> {
    const pairs: [string, Record<string, string>][] = [['total', {}]];
    for (const verb of kubeVerbs)
      for (const resource of kubeResources) pairs.push([`${verb} ${resource}`, { verb, resource }]);
    for (const [key, match] of pairs) {
      const response = await fetch(faults, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'latency', ms: 0, match }),
      });
      if (response.status !== 201) throw new Error(`fault rule for ${key}: ${response.status}`);
      rules.set(((await response.json()) as { id: string }).id, key);
    }
  }
  async function remove(): Promise<void> {
    await Promise.all([...rules.keys()].map((id) => fetch(`${faults}/${id}`, { method: 'DELETE' })));
    rules.clear();
  }
  await install();
  return {
    async read() {
      const { faults: listed } = (await (await fetch(faults)).json()) as {
        faults: { id: string; hits?: number }[];
      };
      const counts: Record<string, number> = {};
      for (const rule of listed) {
        const key = rules.get(rule.id);
        if (key && rule.hits) counts[key] = rule.hits;
      }
      return counts;
    },
    async reset() {
      await remove();
      await install();
    },
    remove,
  };
}
