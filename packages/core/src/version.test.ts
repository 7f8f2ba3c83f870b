import { describe, expect, it } from 'vitest';
import { compatibleReleases } from './version.ts';

describe('compatibleReleases', () => {
  it('holds within a major, whichever side is newer', () => {
    expect(compatibleReleases('1.4.0', '1.0.2')).toBe(true);
    expect(compatibleReleases('1.0.0', '1.9.3')).toBe(true);
    expect(compatibleReleases('2.0.0-next.1', '2.1.0')).toBe(true);
  });

  it('does not hold across a major, nor across minors before 1.0.0', () => {
    expect(compatibleReleases('2.0.0', '1.9.3')).toBe(false);
    expect(compatibleReleases('1.0.0', '0.9.0')).toBe(false);
    expect(compatibleReleases('0.9.1', '0.8.0')).toBe(false);
    expect(compatibleReleases('0.9.1', '0.9.0')).toBe(true);
  });

  it('is unknown for a release that is not a version', () => {
    expect(compatibleReleases('dev', '1.0.0')).toBeNull();
    expect(compatibleReleases('1.0.0', 'unknown')).toBeNull();
  });
});
