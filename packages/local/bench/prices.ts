/**
 * Public on-demand AWS prices (us-east-1, USD) as of `pricesAsOf`, from AWS's public pricing pages
 * and the figures quoted from them; `confirmed` says whether the figure was checked against a
 * stored copy of such a page when this was written (no live browsing here). Free tiers are left
 * out: they are per account, not per service.
 */
export const pricesAsOf = '2026-06-01';

export const Prices = {
  lambda: {
    /** Arm (the functions are arm64, infra/functions.ts), first 7.5 billion GB-s a month. */
    perGbSecond: { usd: 0.0000133334, confirmed: true },
    perMillionRequests: { usd: 0.2, confirmed: true },
  },
  dynamodb: {
    /** On-demand, standard table class (after the November 2024 price cut). */
    perMillionWriteUnits: { usd: 0.625, confirmed: true },
    perMillionReadUnits: { usd: 0.125, confirmed: true },
    perGbMonth: { usd: 0.25, confirmed: false },
  },
  sqs: {
    /** Standard queue; every 64 KB chunk of a request is one request. */
    perMillionRequests: { usd: 0.4, confirmed: true },
  },
  cloudwatchLogs: {
    /** Standard log class. */
    perGbIngested: { usd: 0.5, confirmed: true },
    perGbMonthStored: { usd: 0.03, confirmed: true },
  },
  apiGateway: {
    /** HTTP API, first 300 million requests a month. */
    perMillionRequests: { usd: 1.0, confirmed: true },
  },
} as const;

/** SST's default function memory (the functions set none, infra/functions.ts). */
export const functionMemoryGb = 1;

/**
 * What Lambda writes to CloudWatch per invocation besides the function's own lines: START, END
 * and REPORT. An estimate from their usual length, not a measurement.
 */
const platformLogBytesPerInvocation = 350;

/** Everything one preview costs, per preview (create → ready → update → ready → destroy). */
export interface PreviewUsage {
  apiRequests: number;
  apiSeconds: number;
  workerInvocations: number;
  workerSeconds: number;
  readUnits: number;
  writeUnits: number;
  sqsRequests: number;
  logBytes: number;
  /** Bytes kept in the table per preview (until its TTL). */
  storedBytes: number;
  /** Days those bytes stay (the longest TTL). */
  storedDays: number;
}

export interface MonthlyCost {
  lambda: number;
  apiGateway: number;
  dynamodb: number;
  sqs: number;
  cloudwatch: number;
  total: number;
}

const perMillion = (count: number, price: { usd: number }) => (count / 1e6) * price.usd;

/** Monthly cost of `perDay` previews a day (30-day month); logs are kept `logRetentionDays`. */
export function monthlyCost(usage: PreviewUsage, perDay: number, logRetentionDays = 30): MonthlyCost {
  const n = perDay * 30;
  const invocations = usage.apiRequests + usage.workerInvocations;
  const lambda =
    perMillion(n * invocations, Prices.lambda.perMillionRequests) +
    n * (usage.apiSeconds + usage.workerSeconds) * functionMemoryGb * Prices.lambda.perGbSecond.usd;
  const apiGateway = perMillion(n * usage.apiRequests, Prices.apiGateway.perMillionRequests);
  // Steady state: previews of the last `storedDays` days are in the table at any time.
  const storedGb = (perDay * usage.storedDays * usage.storedBytes) / 1e9;
  const dynamodb =
    perMillion(n * usage.readUnits, Prices.dynamodb.perMillionReadUnits) +
    perMillion(n * usage.writeUnits, Prices.dynamodb.perMillionWriteUnits) +
    storedGb * Prices.dynamodb.perGbMonth.usd;
  const sqs = perMillion(n * usage.sqsRequests, Prices.sqs.perMillionRequests);
  const logGb = (n * (usage.logBytes + invocations * platformLogBytesPerInvocation)) / 1e9;
  const cloudwatch =
    logGb * Prices.cloudwatchLogs.perGbIngested.usd +
    logGb * (logRetentionDays / 30) * Prices.cloudwatchLogs.perGbMonthStored.usd;
  return {
    lambda,
    apiGateway,
    dynamodb,
    sqs,
    cloudwatch,
    total: lambda + apiGateway + dynamodb + sqs + cloudwatch,
  };
}

/**
 * Status reads of one `svc composition wait` lasting `seconds`: a read, then one after each sleep
 * of 250 ms doubling to 2 s (packages/cli/src/commands/composition/wait.ts).
 */
export function waitPolls(seconds: number): number {
  let polls = 1;
  let elapsed = 0;
  for (let interval = 250; elapsed < seconds * 1000; interval = Math.min(interval * 2, 2000)) {
    elapsed += interval;
    polls++;
  }
  return polls;
}

/** What runs whatever the number of previews: the schedules and the queue's event source. */
export interface FixedUsage {
  scheduleInvocations: number;
  scheduleSeconds: number;
  /** A Query of an empty `due` partition: DynamoDB Local reports 0; AWS bills at least 0.5 RRU for an eventually consistent read. */
  scheduleReadUnits: number;
  /** Empty long polls of the job queue by Lambda's event source. */
  idleReceives: number;
}

export function fixedMonthlyCost(usage: FixedUsage): MonthlyCost {
  const lambda =
    perMillion(usage.scheduleInvocations, Prices.lambda.perMillionRequests) +
    usage.scheduleInvocations * usage.scheduleSeconds * functionMemoryGb * Prices.lambda.perGbSecond.usd;
  const dynamodb = perMillion(
    usage.scheduleInvocations * usage.scheduleReadUnits,
    Prices.dynamodb.perMillionReadUnits,
  );
  const sqs = perMillion(usage.idleReceives, Prices.sqs.perMillionRequests);
  const cloudwatch =
    ((usage.scheduleInvocations * platformLogBytesPerInvocation) / 1e9) *
    (Prices.cloudwatchLogs.perGbIngested.usd + Prices.cloudwatchLogs.perGbMonthStored.usd);
  return { lambda, apiGateway: 0, dynamodb, sqs, cloudwatch, total: lambda + dynamodb + sqs + cloudwatch };
}
