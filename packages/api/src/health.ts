import {
  type DependencyCheck,
  type DependencyReport,
  DependencyStatus,
  type Log,
  outwardCause,
} from '@svc/core';

const checkTimeoutMs = 2000;

/**
 * Probes every dependency in parallel; one slow dependency cannot stall the report past the timeout.
 * The report is unauthenticated, so a failure answers a short cause (`connection failed
 * (ECONNREFUSED)`, `access denied`, `no answer in time`); what the dependency said goes to `log`.
 */
export async function probeDependencies(
  checks: readonly DependencyCheck[],
  expected: readonly string[],
  log: Log,
): Promise<{ healthy: boolean; dependencies: Record<string, DependencyReport> }> {
  const entries = await Promise.all(
    checks.map(async (dependency): Promise<[string, DependencyReport]> => {
      const started = performance.now();
      try {
        await dependency.check(AbortSignal.timeout(checkTimeoutMs));
        return [dependency.name, { status: DependencyStatus.Ok, latency_ms: elapsed(started), error: null }];
      } catch (error) {
        log({
          level: 'warn',
          msg: 'dependency check failed',
          dependency: dependency.name,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
        return [
          dependency.name,
          { status: DependencyStatus.Error, latency_ms: elapsed(started), error: outwardCause(error) },
        ];
      }
    }),
  );
  const dependencies: Record<string, DependencyReport> = Object.fromEntries(entries);
  for (const name of expected) {
    dependencies[name] ??= { status: DependencyStatus.Unconfigured, latency_ms: null, error: null };
  }
  const healthy = Object.values(dependencies).every((d) => d.status !== DependencyStatus.Error);
  return { healthy, dependencies };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
