import { Forge } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { deferral } from './forge.ts';

describe('deferral of a forge job', () => {
  it('puts off a rate-limited job until the reset', () => {
    expect(deferral(new Forge.ForgeRateLimitedError('1', 42))).toBe(42);
  });

  it('puts off a contended convergence one to three seconds, spread', () => {
    const contended = new Forge.ForgeContendedError('change c-1');
    expect(deferral(contended, () => 0)).toBe(1);
    expect(deferral(contended, () => 0.5)).toBe(2);
    expect(deferral(contended, () => 0.999)).toBe(3);
  });

  it('leaves any other failure to the queue', () => {
    expect(deferral(new Error('the table refused the write'))).toBeNull();
  });
});
