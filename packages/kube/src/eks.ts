/**
 * EKS access without kubectl or aws-iam-authenticator: `DescribeCluster` gives the endpoint and CA,
 * and the bearer token is a presigned STS `GetCallerIdentity` URL (the `k8s-aws-v1.` scheme that
 * aws-iam-authenticator and `aws eks get-token` produce). EKS accepts such a token for 15 minutes;
 * we renew it after 10.
 */
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { KubeConfigSource } from './cluster.ts';
import { tokenKubeConfig } from './config.ts';

export const tokenPrefix = 'k8s-aws-v1.';
export const tokenRenewAfterMs = 10 * 60 * 1000;

export async function eksToken(input: {
  clusterName: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  signingDate?: Date;
}): Promise<string> {
  const hostname = `sts.${input.region}.amazonaws.com`;
  const signer = new SignatureV4({
    credentials: input.credentials,
    region: input.region,
    service: 'sts',
    sha256: Hash.bind(null, 'sha256'),
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: hostname, 'x-k8s-aws-id': input.clusterName },
  });
  const presigned = await signer.presign(request, {
    expiresIn: 60,
    ...(input.signingDate ? { signingDate: input.signingDate } : {}),
  });
  const query = Object.entries(presigned.query ?? {})
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  const url = `https://${hostname}${presigned.path}?${query}`;
  return `${tokenPrefix}${Buffer.from(url).toString('base64url')}`;
}

/** A kubeconfig for an EKS cluster whose token is renewed before it expires. */
export function eksKubeConfigSource(input: {
  clusterName: string;
  region: string;
  eks?: EKSClient;
  credentials?: AwsCredentialIdentityProvider;
  now?: () => number;
}): KubeConfigSource {
  // The same deadlines as every AWS client (packages/aws `awsTimeouts`): a frozen EKS API fails the
  // cluster's first call in seconds instead of holding a request.
  const eks =
    input.eks ??
    new EKSClient({
      region: input.region,
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1000, requestTimeout: 2500, throwOnRequestTimeout: true },
    });
  const credentials = input.credentials ?? defaultProvider();
  const now = input.now ?? Date.now;
  let cluster: Promise<{ server: string; caData: string }> | undefined;
  let cached: { config: KubeConfig; renewAt: number } | undefined;

  return {
    async get() {
      if (cached && now() < cached.renewAt) return cached.config;
      cluster ??= eks.send(new DescribeClusterCommand({ name: input.clusterName })).then(({ cluster: c }) => {
        if (!c?.endpoint || !c.certificateAuthority?.data) {
          throw new Error(`EKS cluster ${input.clusterName} has no endpoint or certificate authority yet`);
        }
        return { server: c.endpoint, caData: c.certificateAuthority.data };
      });
      const { server, caData } = await cluster.catch((error: unknown) => {
        cluster = undefined;
        throw error;
      });
      const token = await eksToken({ clusterName: input.clusterName, region: input.region, credentials });
      cached = {
        config: tokenKubeConfig({ name: input.clusterName, server, caData, token }),
        renewAt: now() + tokenRenewAfterMs,
      };
      return cached.config;
    },
  };
}
