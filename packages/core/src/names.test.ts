import { describe, expect, it } from 'vitest';
import { dnsLabelPattern, newId, newSortableId } from './names.ts';

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
