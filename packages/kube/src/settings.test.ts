import { parseEnvironment, SettingsError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { KubeEnvironment } from './settings.ts';

const problems = (env: Record<string, string>) => {
  try {
    parseEnvironment(KubeEnvironment, env);
  } catch (error) {
    if (error instanceof SettingsError) return error.message;
    throw error;
  }
  return 'no problem';
};

const anyAccess = { projects: null, previewNamespaces: null, previewDomains: null };

describe('the kube part of the settings', () => {
  it('reads one cluster from the single-cluster variables: a kubeconfig named local, or the EKS cluster named after itself', () => {
    expect(problems({})).toMatch(
      /CLUSTERS or KUBECONFIG, or EKS_CLUSTER_NAME \(with AWS_REGION\) must be set/,
    );
    expect(problems({ EKS_CLUSTER_NAME: 'staging' })).toMatch(/with AWS_REGION/);
    expect(parseEnvironment(KubeEnvironment, { KUBECONFIG: '/k', EKS_CLUSTER_NAME: 'staging' })).toEqual({
      clusters: [{ name: 'local', where: { kubeconfig: '/k' }, previewUrlTemplate: null, access: anyAccess }],
    });
    expect(
      parseEnvironment(KubeEnvironment, { KUBECONFIG: '', EKS_CLUSTER_NAME: 's', AWS_REGION: 'r' }),
    ).toEqual({
      clusters: [
        { name: 's', where: { clusterName: 's', region: 'r' }, previewUrlTemplate: null, access: anyAccess },
      ],
    });
  });

  it('reads the clusters CLUSTERS names, over the single-cluster variables, EKS ones in AWS_REGION unless told', () => {
    const clusters = JSON.stringify({
      local: { kubeconfig: '/k1' },
      team: {
        kubeconfig: '/k2',
        context: 'kind-team',
        preview_url: 'http://{id}.{domain}:8090/',
        projects: ['team'],
        preview_namespaces: ['team-staging'],
        preview_domains: ['Team.Example.com'],
      },
      eu: { eks_cluster: 'prod-eu', region: 'eu-central-1' },
      us: { eks_cluster: 'prod-us' },
    });
    expect(
      parseEnvironment(KubeEnvironment, {
        CLUSTERS: clusters,
        KUBECONFIG: '/ignored',
        AWS_REGION: 'us-east-1',
      }),
    ).toEqual({
      clusters: [
        { name: 'local', where: { kubeconfig: '/k1' }, previewUrlTemplate: null, access: anyAccess },
        {
          name: 'team',
          where: { kubeconfig: '/k2', context: 'kind-team' },
          previewUrlTemplate: 'http://{id}.{domain}:8090/',
          access: {
            projects: ['team'],
            previewNamespaces: ['team-staging'],
            previewDomains: ['team.example.com'],
          },
        },
        {
          name: 'eu',
          where: { clusterName: 'prod-eu', region: 'eu-central-1' },
          previewUrlTemplate: null,
          access: anyAccess,
        },
        {
          name: 'us',
          where: { clusterName: 'prod-us', region: 'us-east-1' },
          previewUrlTemplate: null,
          access: anyAccess,
        },
      ],
    });
  });

  it('names the variable and the cluster of every problem, never a value', () => {
    const message = problems({
      CLUSTERS: JSON.stringify({
        both: { kubeconfig: '/secret/path', eks_cluster: 'x' },
        neither: {},
        eu: { eks_cluster: 'prod-eu' },
        odd: { kubeconfig: '/k', region: 'eu-west-1' },
        'has space': { kubeconfig: '/k' },
        typo: { kubeconfig: '/k', contxt: 'a' },
        bad: { eks_cluster: 'not/a/name', preview_url: 'http://x/' },
      }),
    });
    expect(message).toContain('CLUSTERS.typo.contxt is not a known field');
    expect(message).toContain('CLUSTERS.bad.eks_cluster must be an EKS cluster name');
    expect(message).toContain('CLUSTERS.bad.preview_url must include {id}');
    expect(
      problems({ CLUSTERS: JSON.stringify({ both: { kubeconfig: '/secret/path', eks_cluster: 'x' } }) }),
    ).toBe(
      'invalid environment: CLUSTERS.both must have exactly one of kubeconfig or eks_cluster: where the cluster is',
    );
    const entries = problems({
      CLUSTERS: JSON.stringify({
        neither: {},
        eu: { eks_cluster: 'prod-eu' },
        odd: { kubeconfig: '/k', region: 'eu-west-1' },
        'has space': { kubeconfig: '/k' },
      }),
    });
    expect(entries).toContain('CLUSTERS.neither must have exactly one of kubeconfig or eks_cluster');
    expect(entries).toContain('CLUSTERS.eu.region is not set, and neither is AWS_REGION');
    expect(entries).toContain('CLUSTERS.odd.region belongs with eks_cluster, not a kubeconfig');
    expect(entries).toContain('CLUSTERS.has space is not a cluster name');
    expect(problems({ CLUSTERS: '{}' })).toBe('invalid environment: CLUSTERS must name at least one cluster');
    expect(problems({ CLUSTERS: 'local' })).toBe('invalid environment: CLUSTERS must be JSON');
    expect(message).not.toContain('/secret/path');
  });
});
