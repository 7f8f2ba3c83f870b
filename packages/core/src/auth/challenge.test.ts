import { describe, expect, it } from 'vitest';
import { bearerChallenge, Refusal, refusalDescriptions } from './challenge.ts';

describe('bearerChallenge', () => {
  it('is bare without a credential, as RFC 6750 §3.1 asks', () => {
    expect(bearerChallenge(Refusal.Missing)).toBe('Bearer');
  });

  it('names invalid_token and says why once a credential was refused', () => {
    expect(bearerChallenge(Refusal.Revoked)).toBe(
      `Bearer error="invalid_token", error_description="${refusalDescriptions.revoked}"`,
    );
    expect(new Set(Object.values(refusalDescriptions)).size).toBe(3);
  });

  it.each(Object.entries(refusalDescriptions))(
    'keeps the %s description to the characters RFC 6750 allows',
    (_, text) => {
      expect(text).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
    },
  );
});
