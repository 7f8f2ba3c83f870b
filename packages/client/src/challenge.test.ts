import { Auth } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { bearerChallenge } from './challenge.ts';

describe('bearerChallenge', () => {
  it.each(Object.entries(Auth.refusalDescriptions))(
    'reads back what the API says of a refused credential (%s)',
    (refusal, text) => {
      expect(bearerChallenge(Auth.bearerChallenge(refusal as Auth.Refusal))).toEqual({
        error: 'invalid_token',
        error_description: text,
      });
    },
  );

  it('reads a bare challenge as saying nothing, and no Bearer challenge as none', () => {
    expect(bearerChallenge('Bearer')).toEqual({ error: null, error_description: null });
    expect(bearerChallenge(Auth.bearerChallenge(Auth.Refusal.Missing))).toEqual({
      error: null,
      error_description: null,
    });
    expect(bearerChallenge('Basic realm="x"')).toBeNull();
    expect(bearerChallenge(undefined)).toBeNull();
    expect(bearerChallenge('Bearerish error="x"')).toBeNull();
  });

  it('finds the Bearer challenge among others, with token and quoted values, escapes and commas', () => {
    expect(
      bearerChallenge(
        'Basic realm="a, b", bearer realm=api, error = "invalid_token" , error_description="said \\"no\\", twice", Digest nonce="x"',
      ),
    ).toEqual({ error: 'invalid_token', error_description: 'said "no", twice' });
    expect(bearerChallenge('Bearer error=invalid_token')).toEqual({
      error: 'invalid_token',
      error_description: null,
    });
  });
});
