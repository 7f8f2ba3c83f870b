/** The report of `bench:scale`: Markdown tables, each figure next to its floor from the same level. */
import type { ApiFigure } from './scale-api.ts';
import type { ClusterContents } from './scale-cluster.ts';

export interface SweepRun {
  sweep: string;
  /** Compositions live when it ran (the bench's count). */
  live: number;
  /** What it did: compositions expired, operations redispatched. */
  done: number;
  ms: number;
  /** DynamoDB requests by operation, SQS requests by operation. */
  dynamodb: Record<string, number>;
  sqs: Record<string, number>;
}

export interface Level {
  label: string;
  live: number;
  failed: number;
  drainSeconds: number;
  loadAverage: number;
  api: ApiFigure[];
  /** Accepted → ready minus the pod-ready delay, compositions created one at a time, nothing else running. */
  lagAlone: number[];
  /** The same for compositions created at the sustained rate just before the level was reached. */
  lagUnderLoad: number[];
  /** A bare Deployment to Available through the cluster's API, minus the pod-ready delay. */
  bareRollout: number[];
  /** The worker's requests per probe rollout: DynamoDB, SQS and ClusterPort calls. */
  perRollout: { dynamodb: number; sqs: number; cluster: number };
  memory: { stackHeap: number; workerHeap: number; stackRss: number; workerRss: number };
  cluster: ClusterContents;
  sweeps: SweepRun[];
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(value < 10 ? 1 : 0)}` : '–');
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function table(head: string[], rows: string[][]): string {
  return [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
}

/** API p50 / p99 at each level; the ratio is the p50 over its floor's p50 at the same level. */
function apiTable(levels: readonly Level[]): string {
  const names = levels[0]?.api.map((figure) => figure.name) ?? [];
  const rows = names.map((name) => [
    name,
    ...levels.map((level) => {
      const figure = level.api.find((f) => f.name === name);
      const floor = level.api.find((f) => f.name === figure?.floor);
      if (!figure) return '–';
      const ratio = floor ? ` (${(figure.p50 / floor.p50).toFixed(2)}×)` : '';
      const errors = figure.errors ? `, ${figure.errors} errors` : '';
      return `${ms(figure.p50)} / ${ms(figure.p99)}${ratio}${errors}`;
    }),
  ]);
  return table(['read: p50 / p99 ms (p50 ÷ its floor)', ...levels.map((l) => `${l.live} live`)], rows);
}

function lagTable(levels: readonly Level[]): string {
  const pair = (values: readonly number[]) => `${ms(quantile(values, 0.5))} / ${ms(quantile(values, 0.99))}`;
  const floor = levels[0]?.lagAlone ?? [];
  return table(
    ['worker lag: p50 / p99 ms', ...levels.map((l) => `${l.live} live`)],
    [
      ['at the sustained create rate (under churn)', ...levels.map((l) => pair(l.lagUnderLoad))],
      ['one at a time', ...levels.map((l) => pair(l.lagAlone))],
      [
        'one at a time ÷ one at a time on the empty stack (p50)',
        ...levels.map((l) => `${(quantile(l.lagAlone, 0.5) / quantile(floor, 0.5)).toFixed(2)}×`),
      ],
      ['floor: a bare Deployment in the same namespace', ...levels.map((l) => pair(l.bareRollout))],
      [
        "worker's requests per rollout: DynamoDB / SQS / cluster",
        ...levels.map((l) => `${l.perRollout.dynamodb} / ${l.perRollout.sqs} / ${l.perRollout.cluster}`),
      ],
    ],
  );
}

function memoryTable(levels: readonly Level[]): string {
  const first = levels[0];
  const per = (level: Level, value: (l: Level) => number) =>
    first && level.live > first.live ? kb((value(level) - value(first)) / (level.live - first.live)) : '–';
  return table(
    ['memory', ...levels.map((l) => `${l.live} live`)],
    [
      [
        'API + local cluster + fauxqs process: heap MB (RSS MB)',
        ...levels.map((l) => `${mb(l.memory.stackHeap)} (${mb(l.memory.stackRss)})`),
      ],
      [
        '… per live composition over the empty stack, KB',
        ...levels.map((l) => per(l, (x) => x.memory.stackHeap)),
      ],
      [
        'worker process: heap MB (RSS MB)',
        ...levels.map((l) => `${mb(l.memory.workerHeap)} (${mb(l.memory.workerRss)})`),
      ],
      ['… per live composition, KB', ...levels.map((l) => per(l, (x) => x.memory.workerHeap))],
      ['cluster objects (all kinds)', ...levels.map((l) => String(l.cluster.objects))],
      [
        '… per live composition over the empty stack, by kind',
        ...levels.map((l) =>
          first && l.live > first.live
            ? Object.entries(l.cluster.byKind)
                .map(
                  ([kind, count]) =>
                    [kind, (count - (first.cluster.byKind[kind] ?? 0)) / (l.live - first.live)] as const,
                )
                .filter(([, per]) => per >= 0.05)
                .map(([kind, per]) => `${kind} ${per.toFixed(1)}`)
                .join(', ')
            : '–',
        ),
      ],
      [
        'floor: their bytes as JSON, per live composition, KB',
        ...levels.map((l) => per(l, (x) => x.cluster.bytes)),
      ],
    ],
  );
}

function sweepTable(levels: readonly Level[], runs: readonly SweepRun[]): string {
  const perDone = (run: SweepRun, counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([operation, count]) => `${operation} ${(count / Math.max(1, run.done)).toFixed(2)}`)
      .join(', ');
  const rows = [...runs, ...levels.flatMap((l) => l.sweeps)]
    .filter((run) => run.done > 0 || run.sweep !== 'expiry-sweep')
    .sort((a, b) => a.live - b.live)
    .map((run) => [
      run.sweep,
      String(run.live),
      String(run.done),
      ms(run.ms),
      run.done ? ms(run.ms / run.done) : '–',
      perDone(run, run.dynamodb) || '–',
      perDone(run, run.sqs) || '–',
    ]);
  return [
    table(
      ['sweep', 'live', 'done', 'ms', 'ms per one done', 'DynamoDB per one done', 'SQS per one done'],
      rows,
    ),
    '',
    expiryPerComposition(levels, runs),
  ].join('\n');
}

/**
 * The expiry sweep's time per expired composition with many live against its floor, the same
 * sweep with few live in the same run: O(expired) keeps the ratio near 1.
 */
function expiryPerComposition(levels: readonly Level[], runs: readonly SweepRun[]): string {
  const most = Math.max(...levels.map((l) => l.live));
  const expiries = [...runs, ...levels.flatMap((l) => l.sweeps)].filter(
    (run) => run.sweep === 'expiry-sweep' && run.done > 0,
  );
  const perExpired = (few: boolean) =>
    expiries
      .filter((run) => run.live < most / 2 === few)
      .flatMap((run) => Array(run.done).fill(run.ms / run.done));
  const [floor, many] = [perExpired(true), perExpired(false)];
  const median = (values: number[]) => quantile(values, 0.5);
  return table(
    ['expiry sweep: ms per expired composition (median over compositions)', 'value'],
    [
      [`floor: runs with under ${Math.round(most / 2)} live (${floor.length} expired)`, ms(median(floor))],
      [`runs with ${Math.round(most / 2)} live or more (${many.length} expired)`, ms(median(many))],
      ['ratio', floor.length && many.length ? `${(median(many) / median(floor)).toFixed(2)}×` : '–'],
    ],
  );
}

export function report(options: {
  n: number;
  rate: number;
  podReadyDelayMs: number;
  levels: readonly Level[];
  sweeps: readonly SweepRun[];
  started: Date;
  seconds: number;
  loadAverage: { start: number; end: number };
}): string {
  const { levels } = options;
  const lines = [
    `bench:scale — N=${options.n}, ${options.rate} creates/s (1 in 8 expires after 1 min, 1 in 8 is destroyed after 5 s), pod-ready delay ${options.podReadyDelayMs} ms`,
    `run ${options.started.toISOString()}, ${options.seconds.toFixed(0)} s in all; load average (1 min) ${options.loadAverage.start.toFixed(1)} at the start, ${levels.map((l) => l.loadAverage.toFixed(1)).join(', ')} at the levels, ${options.loadAverage.end.toFixed(1)} at the end`,
    `levels: ${levels.map((l) => `${l.live} live (${l.failed} failed, drained in ${l.drainSeconds.toFixed(1)} s)`).join('; ')}`,
    '',
    apiTable(levels),
    '',
    lagTable(levels),
    '',
    memoryTable(levels),
    '',
    sweepTable(levels, options.sweeps),
  ];
  return lines.join('\n');
}
