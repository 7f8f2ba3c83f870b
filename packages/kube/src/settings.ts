/**
 * The kube part of the service's settings: where the cluster is, checked at start before any
 * client is loaded (the API loads @kubernetes/client-node on its first cluster call only).
 */
import { variablePath } from '@svc/core';
import * as v from 'valibot';

export type ClusterSettings = { kubeconfig: string } | { clusterName: string; region: string };

/** `KUBECONFIG` (a file) when set, else the EKS cluster `EKS_CLUSTER_NAME` in `AWS_REGION`. */
export const KubeEnvironment = v.pipe(
  v.object({
    KUBECONFIG: v.optional(v.string()),
    EKS_CLUSTER_NAME: v.optional(v.string()),
    AWS_REGION: v.optional(v.string()),
  }),
  v.rawTransform(({ dataset, addIssue, NEVER }): ClusterSettings => {
    const env = dataset.value;
    if (env.KUBECONFIG) return { kubeconfig: env.KUBECONFIG };
    if (env.EKS_CLUSTER_NAME && env.AWS_REGION)
      return { clusterName: env.EKS_CLUSTER_NAME, region: env.AWS_REGION };
    addIssue({
      message: 'or EKS_CLUSTER_NAME (with AWS_REGION) must be set: where the cluster is',
      path: variablePath(env, 'KUBECONFIG'),
    });
    return NEVER;
  }),
);
