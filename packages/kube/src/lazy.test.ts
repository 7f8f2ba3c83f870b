import { describe, expect, it } from 'vitest';
import { lazyClusterFromEnvironment } from './lazy.ts';

describe('lazyClusterFromEnvironment', () => {
  it('refuses an environment without a cluster at start, as the eager adapter does', () => {
    expect(() => lazyClusterFromEnvironment({})).toThrow(/KUBECONFIG or EKS_CLUSTER_NAME/);
  });

  it('reads nothing of the cluster until the first call, which then fails as the eager adapter would', async () => {
    const cluster = lazyClusterFromEnvironment({ KUBECONFIG: '/nonexistent/kubeconfig' });
    await expect(cluster.serverVersion()).rejects.toThrow(/nonexistent/);
    await expect(cluster.health.check(AbortSignal.timeout(1000))).rejects.toThrow(/nonexistent/);
  });
});
