import { describe, expect, it } from 'vitest';
import { eksKubeConfigSource, eksToken, tokenPrefix, tokenRenewAfterMs } from './eks.ts';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

function decode(token: string): URL {
  expect(token.startsWith(tokenPrefix)).toBe(true);
  const encoded = token.slice(tokenPrefix.length);
  expect(encoded).not.toMatch(/[=+/]/);
  return new URL(Buffer.from(encoded, 'base64url').toString('utf8'));
}

describe('EKS bearer token', () => {
  it('is k8s-aws-v1. + base64url of a presigned STS GetCallerIdentity URL bound to the cluster', async () => {
    const token = await eksToken({
      clusterName: 'staging',
      region: 'eu-west-1',
      credentials,
      signingDate: new Date('2026-11-25T12:00:00Z'),
    });
    const url = decode(token);
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('Version')).toBe('2011-06-15');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261125/eu-west-1/sts/aws4_request');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261125T120000Z');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with the cluster name (the header is signed)', async () => {
    const at = new Date('2026-11-25T12:00:00Z');
    const a = await eksToken({ clusterName: 'a', region: 'eu-west-1', credentials, signingDate: at });
    const b = await eksToken({ clusterName: 'b', region: 'eu-west-1', credentials, signingDate: at });
    expect(decode(a).searchParams.get('X-Amz-Signature')).not.toBe(
      decode(b).searchParams.get('X-Amz-Signature'),
    );
  });

  it('renews the kubeconfig before the 15-minute token life ends, describing the cluster once', async () => {
    let described = 0;
    let clock = Date.parse('2026-11-25T12:00:00Z');
    const eks = {
      send: async () => {
        described++;
        return { cluster: { endpoint: 'https://eks.example.com', certificateAuthority: { data: 'Y2E=' } } };
      },
    };
    const source = eksKubeConfigSource({
      clusterName: 'staging',
      region: 'eu-west-1',
      eks: eks as never,
      credentials: async () => credentials,
      now: () => clock,
    });
    const first = await source.get();
    expect(await source.get()).toBe(first);
    expect(first.getCurrentCluster()?.server).toBe('https://eks.example.com');
    expect(first.getCurrentUser()?.token?.startsWith(tokenPrefix)).toBe(true);
    clock += tokenRenewAfterMs;
    const second = await source.get();
    expect(second).not.toBe(first);
    expect(described).toBe(1);
    expect(tokenRenewAfterMs).toBeLessThan(15 * 60 * 1000);
  });
});
