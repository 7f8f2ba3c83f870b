import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.ts';

describe('durations', () => {
  it.each([
    ['30m', 1800],
    ['2h', 7200],
    ['1h30m', 5400],
    ['90s', 90],
    ['24h', 86400],
    ['1h0m5s', 3605],
  ])('parses %s', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', '2', 'h', '1d', '30m2h', '-1h', '1.5h', ' 2h', '2H'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it('formats canonically', () => {
    expect(formatDuration(5400)).toBe('1h30m');
    expect(formatDuration(14400)).toBe('4h');
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(3605)).toBe('1h5s');
  });
});
