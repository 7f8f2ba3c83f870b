import { describe, expect, it } from 'vitest';
import { isolatedQueueName, isolatedQueuePrefix, topicGranted } from './ports.ts';

describe('topicGranted', () => {
  it.each([
    ['orders', ['orders'], true],
    ['orders', ['billing'], false],
    ['orders-eu', ['orders'], false],
    ['billing-eu', ['billing-*'], true],
    ['billing-', ['billing-*'], true],
    ['x-billing-eu', ['billing-*'], false],
    ['anything', ['*'], true],
    ['arn:aws:sns:eu-west-1:123456789012:orders', ['orders'], true],
    ['arn:aws:sns:eu-west-1:123456789012:refunds', ['orders', 'bill*'], false],
    ['orders', [], false],
    ['a.b', ['a?b'], false],
  ] as const)('%s under %j is %s', (topic, grants, granted) => {
    expect(topicGranted(topic, grants)).toBe(granted);
  });

  it('takes regular-expression characters in a grant literally', () => {
    expect(topicGranted('aXb', ['a.b'])).toBe(false);
    expect(topicGranted('a.b', ['a.b'])).toBe(true);
  });
});

describe('isolated queue names', () => {
  it('start with the installation prefix and the composition id', () => {
    expect(isolatedQueueName('preview_staging_', 'c-1', 'service-d', 0)).toBe(
      'preview_staging_c-1-service-d-0',
    );
    expect(isolatedQueuePrefix('preview-', 'c-1')).toBe('preview-c-1-');
  });

  it("stay within SQS's 80 characters and keep the composition's whole prefix, so removal finds them", () => {
    const id = `c-${'a'.repeat(38)}`;
    const name = isolatedQueueName('preview_production_', id, 'x'.repeat(63), 2);
    expect(name.length).toBe(80);
    expect(name.startsWith(isolatedQueuePrefix('preview_production_', id))).toBe(true);
    expect(isolatedQueueName('preview_production_', id, 'x'.repeat(63), 3)).not.toBe(name);
  });
});
