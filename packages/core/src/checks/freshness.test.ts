import { describe, expect, it } from 'vitest';
import { checkView, freshness } from './freshness.ts';
import { CheckKind, type CheckRecord, type Fingerprint } from './model.ts';

const fingerprintOf = (inputs: Record<string, string>): Fingerprint => ({
  inputs,
  hash: Object.entries(inputs)
    .map(([k, v]) => `${k}=${v}`)
    .join(','),
});

const recorded = fingerprintOf({
  'image:service-c': 'c1',
  'route:preview-c-1': 'r1',
  'service:service-b': 's1',
});

const check: CheckRecord = {
  id: 'chk-1',
  composition_id: 'c-1',
  kind: CheckKind.Routing,
  generation: 1,
  status: 'passed',
  message: 'every overridden component answered with its override image',
  ran_at: '2026-03-01T12:00:00.000Z',
  target: 'http://c-1.preview.localhost:8082/',
  http_status: 200,
  coverage: { 'service-b': 'verified' },
  fingerprint: recorded,
};

describe('freshness', () => {
  it('is fresh while what the check ran against is unchanged', () => {
    expect(freshness(check, recorded)).toEqual({ freshness: 'fresh', stale_reasons: [] });
  });

  it('is stale when an input changed, appeared or disappeared, each named, in order', () => {
    const now = fingerprintOf({
      'fork-service:service-b': 'f1',
      'image:service-c': 'c2',
      'service:service-b': 's1',
    });
    expect(freshness(check, now)).toEqual({
      freshness: 'stale',
      stale_reasons: [
        'fork-service:service-b appeared',
        'image:service-c changed',
        'route:preview-c-1 disappeared',
      ],
    });
  });

  it('is unknown, never fresh, when the inputs could not be read', () => {
    expect(freshness(check, null)).toEqual({
      freshness: 'unknown',
      stale_reasons: ['the cluster could not be read'],
    });
  });
});

describe('a check as read', () => {
  it('carries its freshness, never its fingerprint', () => {
    const view = checkView(check, recorded);
    expect(view).not.toHaveProperty('fingerprint');
    expect(view).toMatchObject({ id: 'chk-1', frontend: null, freshness: 'fresh', stale_reasons: [] });
  });

  it('is stale for reasons beyond the fingerprint, listed first', () => {
    const reasons = ['generation: the check ran against generation 1, the observed generation is 2'];
    expect(checkView(check, recorded, reasons)).toMatchObject({ freshness: 'stale', stale_reasons: reasons });
    const changed = fingerprintOf({ ...recorded.inputs, 'image:service-c': 'c2' });
    expect(checkView(check, changed, reasons).stale_reasons).toEqual([...reasons, 'image:service-c changed']);
    expect(checkView(check, null, reasons)).toMatchObject({ freshness: 'stale', stale_reasons: reasons });
  });
});
