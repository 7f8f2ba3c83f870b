import { describe, expect, it } from 'vitest';
import type { ClusterPort } from './ports.ts';
import { clusterRegistry } from './registry.ts';

/** A port standing for one cluster: the registry only hands ports out, so none is called. */
const port = (name: string) => ({ health: { name, check: async () => {} } }) as unknown as ClusterPort;

describe('the cluster registry', () => {
  const eu = port('eu');
  const us = port('us');
  const registry = clusterRegistry(
    new Map([
      ['us', us],
      ['eu', eu],
    ]),
  );

  it('lists the clusters it knows, sorted, and hands out the one port built for each', () => {
    expect(registry.names).toEqual(['eu', 'us']);
    expect(registry.lookup('eu')).toEqual({ known: true, name: 'eu', cluster: eu });
    expect(registry.lookup('us')).toMatchObject({ known: true, cluster: us });
  });

  it('answers a name it does not know with the reason, naming the clusters it knows', () => {
    expect(registry.lookup('ap')).toEqual({
      known: false,
      name: 'ap',
      reason: 'cluster "ap" is not one of this installation\'s clusters ("eu", "us")',
    });
  });

  it('places a composition recorded before clusters were named on the only cluster, and nowhere among several', () => {
    expect(clusterRegistry(new Map([['staging', eu]])).lookup(undefined)).toEqual({
      known: true,
      name: 'staging',
      cluster: eu,
    });
    expect(registry.lookup(undefined)).toMatchObject({
      known: false,
      reason: expect.stringMatching(
        /made before clusters were named, and this installation has several \("eu", "us"\)/,
      ),
    });
  });

  it('refuses to be built without a cluster', () => {
    expect(() => clusterRegistry(new Map())).toThrow(/at least one cluster/);
  });
});
