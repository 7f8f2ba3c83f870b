import { Health, type Log, outwardCause } from '@svc/core';

const checkTimeoutMs = 2000;

/** How long one round of checks answers callers nobody identified (per container). */
const healthReuseMs = 5000;

interface ProbeResult {
  healthy: boolean;
  dependencies: Record<string, Health.DependencyReport>;
}

/**
 * Probes every dependency in parallel; one slow dependency cannot stall the report past the timeout.
 * The report is unauthenticated, so a failure answers a short cause (`connection failed
 * (ECONNREFUSED)`, `access denied`, `no answer in time`); what the dependency said goes to `log`.
 */
async function probeDependencies(
  checks: readonly Health.DependencyCheck[],
  expected: readonly string[],
  log: Log,
): Promise<ProbeResult> {
  const entries = await Promise.all(
    checks.map(async (dependency): Promise<[string, Health.DependencyReport]> => {
      const started = performance.now();
      try {
        await dependency.check(AbortSignal.timeout(checkTimeoutMs));
        return [
          dependency.name,
          { status: Health.DependencyStatus.Ok, latency_ms: elapsed(started), error: null },
        ];
      } catch (error) {
        log({
          level: 'warn',
          msg: 'dependency check failed',
          dependency: dependency.name,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
        return [
          dependency.name,
          { status: Health.DependencyStatus.Error, latency_ms: elapsed(started), error: outwardCause(error) },
        ];
      }
    }),
  );
  const dependencies: Record<string, Health.DependencyReport> = Object.fromEntries(entries);
  for (const name of expected) {
    dependencies[name] ??= { status: Health.DependencyStatus.Unconfigured, latency_ms: null, error: null };
  }
  const healthy = Object.values(dependencies).every((d) => d.status !== Health.DependencyStatus.Error);
  return { healthy, dependencies };
}

export interface HealthProbe {
  /** The last round if it finished less than `reuseMs` ago, else the round in flight or a new one. */
  recent(log: Log): Promise<ProbeResult>;
  /** The round in flight, or a new one: never a finished round's answer. */
  fresh(log: Log): Promise<ProbeResult>;
}

/**
 * `/healthz` is open to anyone, and each round asks the table, the queue and every cluster: a
 * flood must cost one round per `reuseMs`, not one per request. Concurrent requests share the
 * round in flight (single flight); the log lines of a round carry the request id that started it.
 */
export function healthProbe(
  checks: readonly Health.DependencyCheck[],
  expected: readonly string[],
  reuseMs = healthReuseMs,
): HealthProbe {
  let inFlight: Promise<ProbeResult> | null = null;
  let last: { result: ProbeResult; finishedAt: number } | null = null;
  const fresh = (log: Log) => {
    inFlight ??= probeDependencies(checks, expected, log).then((result) => {
      last = { result, finishedAt: performance.now() };
      inFlight = null;
      return result;
    });
    return inFlight;
  };
  return {
    fresh,
    recent: (log) =>
      last && performance.now() - last.finishedAt < reuseMs ? Promise.resolve(last.result) : fresh(log),
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
