import { describe, expect, it } from 'vitest';
import { anonymousDependencies, clusterDependency, type DependencyReport } from './report.ts';

const ok = (latency: number): DependencyReport => ({ status: 'ok', latency_ms: latency, error: null });
const down = (error: string): DependencyReport => ({ status: 'error', latency_ms: 2000, error });

describe('what /healthz tells a caller nobody identified', () => {
  it('folds every cluster into one entry that names none, keeping the worst status and the slowest latency', () => {
    const folded = anonymousDependencies({
      dynamodb: ok(3),
      sqs: ok(2),
      [clusterDependency('eu-prod')]: ok(40),
      [clusterDependency('us-prod')]: down('cluster unavailable: connection failed (ECONNREFUSED)'),
      [clusterDependency('ap-prod')]: down('cluster unavailable: connection failed (ECONNREFUSED)'),
    });
    expect(folded).toEqual({
      dynamodb: ok(3),
      sqs: ok(2),
      cluster: {
        status: 'error',
        latency_ms: 2000,
        error: '2 of 3 clusters: cluster unavailable: connection failed (ECONNREFUSED)',
      },
    });
    expect(JSON.stringify(folded)).not.toMatch(/prod/);
  });

  it('reads ok when every cluster answers, and unconfigured only when none is configured', () => {
    expect(anonymousDependencies({ 'cluster:a': ok(1), 'cluster:b': ok(9) }).cluster).toEqual(ok(9));
    const unconfigured: DependencyReport = { status: 'unconfigured', latency_ms: null, error: null };
    expect(anonymousDependencies({ 'cluster:a': unconfigured, 'cluster:b': unconfigured }).cluster).toEqual(
      unconfigured,
    );
  });

  it('renames a single cluster to its kind', () => {
    expect(anonymousDependencies({ 'cluster:only': ok(5) })).toEqual({ cluster: ok(5) });
  });
});
