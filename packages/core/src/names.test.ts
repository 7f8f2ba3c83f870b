import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ClusterName, dnsLabelPattern, newId, newSortableId } from './names.ts';

describe('ids', () => {
  it('are lowercase DNS labels of at most 40 characters', () => {
    for (const id of [newId('c'), newId('op'), newSortableId('ev', new Date())]) {
      expect(id).toMatch(dnsLabelPattern);
      expect(id.length).toBeLessThanOrEqual(40);
    }
  });

  it('sort by creation when made at the same instant', () => {
    const at = new Date('2026-11-25T12:00:00Z');
    const ids = Array.from({ length: 50 }, () => newSortableId('ev', at));
    expect([...ids].sort()).toEqual(ids);
  });

  it('sort by time first', () => {
    const early = newSortableId('ev', new Date('2026-01-01T00:00:00Z'));
    const late = newSortableId('ev', new Date('2026-12-01T00:00:00Z'));
    expect(early < late).toBe(true);
  });
});

describe('cluster names', () => {
  it('take what a kube context or an EKS cluster is called, and nothing with a space or past 100', () => {
    for (const name of [
      'local',
      'local-2',
      'prod_eu',
      'kind-kind',
      'gke_p_europe-west1_a',
      'arn:aws:eks:eu-west-1:1:cluster/x',
    ]) {
      expect(v.is(ClusterName, name), name).toBe(true);
    }
    for (const name of ['', 'a b', 'tab\there', 'é', 'x'.repeat(101)]) {
      expect(v.is(ClusterName, name), name).toBe(false);
    }
    expect(v.safeParse(ClusterName, 'a b').issues?.[0]?.message).toBe(
      'a cluster name is 1–100 printable characters without spaces',
    );
  });
});
