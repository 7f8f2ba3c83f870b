import { describe, expect, it } from 'vitest';
import { lazyCluster } from './lazy.ts';

describe('lazyCluster', () => {
  it('reads nothing of the cluster until the first call, which then fails as the eager adapter would', async () => {
    const cluster = lazyCluster({ kubeconfig: '/nonexistent/kubeconfig' });
    await expect(cluster.serverVersion()).rejects.toThrow(/nonexistent/);
    await expect(cluster.health.check(AbortSignal.timeout(1000))).rejects.toThrow(/nonexistent/);
  });
});
