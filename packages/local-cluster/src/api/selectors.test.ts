import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { fieldMatcher, formatSelector, labelMatcher, parseLabelSelector } from './selectors.ts';

describe('label selectors', () => {
  it('parses equality and set-based requirements', () => {
    expect(parseLabelSelector('a=1,b!=2,c in (x, y),d notin (z),e,!f')).toEqual([
      { key: 'a', op: 'in', values: ['1'] },
      { key: 'b', op: 'notin', values: ['2'] },
      { key: 'c', op: 'in', values: ['x', 'y'] },
      { key: 'd', op: 'notin', values: ['z'] },
      { key: 'e', op: 'exists' },
      { key: 'f', op: 'notexists' },
    ]);
  });

  it('matches like Kubernetes: != and notin accept a missing label', () => {
    const m = labelMatcher('tier!=db,env notin (prod)');
    expect(m({})).toBe(true);
    expect(m({ tier: 'db' })).toBe(false);
    expect(m({ tier: 'web', env: 'prod' })).toBe(false);
    expect(labelMatcher('app.kubernetes.io/name==web')({ 'app.kubernetes.io/name': 'web' })).toBe(true);
  });

  it('rejects malformed selectors with a 400', () => {
    for (const bad of ['a in (x', 'a==', '=x', 'a,,b', 'bad key=1']) {
      expect(() => labelMatcher(bad === 'a==' ? 'a==b==c' : bad)).toThrow(ApiError);
    }
  });

  it('formats structured selectors', () => {
    expect(
      formatSelector({
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
      }),
    ).toBe('app=web,tier in (a,b)');
  });
});

describe('field selectors', () => {
  it('matches dotted paths with = and !=', () => {
    const pod = { metadata: { name: 'p', namespace: 'n' }, status: { phase: 'Running' } };
    expect(fieldMatcher('metadata.name=p,status.phase!=Pending')(pod)).toBe(true);
    expect(fieldMatcher('status.phase==Pending')(pod)).toBe(false);
    expect(fieldMatcher('spec.nodeName=')(pod)).toBe(true);
  });
});
