import { describe, expect, it } from 'vitest';
import { humanAge, wantsTable } from './table.ts';

describe('tables', () => {
  it('formats ages as kubectl does', () => {
    const now = Date.parse('2026-01-10T00:00:00Z');
    const ago = (s: number) => new Date(now - s * 1000).toISOString();
    expect(humanAge(ago(45), now)).toBe('45s');
    expect(humanAge(ago(192), now)).toBe('3m12s');
    expect(humanAge(ago(47 * 60), now)).toBe('47m');
    expect(humanAge(ago(5 * 3600 + 180), now)).toBe('5h3m');
    expect(humanAge(ago(30 * 3600), now)).toBe('30h');
    expect(humanAge(ago(3 * 86400), now)).toBe('3d');
    expect(humanAge(undefined, now)).toBe('<unknown>');
  });

  it('serves a Table only when it is the preferred type', () => {
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toBe(true);
    expect(wantsTable('application/json, */*')).toBe(false);
    expect(wantsTable(undefined)).toBe(false);
  });
});
