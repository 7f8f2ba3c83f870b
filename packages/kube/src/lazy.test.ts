import { parseEnvironment } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { lazyCluster } from './lazy.ts';
import { KubeEnvironment } from './settings.ts';

describe('the kube part of the settings', () => {
  it('wants a kubeconfig file or an EKS cluster with its region', () => {
    expect(() => parseEnvironment(KubeEnvironment, {})).toThrow(/KUBECONFIG or EKS_CLUSTER_NAME/);
    expect(() => parseEnvironment(KubeEnvironment, { EKS_CLUSTER_NAME: 'staging' })).toThrow(
      /with AWS_REGION/,
    );
    expect(parseEnvironment(KubeEnvironment, { KUBECONFIG: '/k', EKS_CLUSTER_NAME: 'staging' })).toEqual({
      kubeconfig: '/k',
    });
    expect(
      parseEnvironment(KubeEnvironment, { KUBECONFIG: '', EKS_CLUSTER_NAME: 's', AWS_REGION: 'r' }),
    ).toEqual({
      clusterName: 's',
      region: 'r',
    });
  });
});

describe('lazyCluster', () => {
  it('reads nothing of the cluster until the first call, which then fails as the eager adapter would', async () => {
    const cluster = lazyCluster({ kubeconfig: '/nonexistent/kubeconfig' });
    await expect(cluster.serverVersion()).rejects.toThrow(/nonexistent/);
    await expect(cluster.health.check(AbortSignal.timeout(1000))).rejects.toThrow(/nonexistent/);
  });
});
