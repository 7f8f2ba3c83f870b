import { describe, expect, it } from 'vitest';
import { secretSeal } from './sealed-tokens.ts';

describe('sealed secrets', () => {
  const seal = secretSeal('an-installation-cursor-key-of-32-characters');

  it('open to what was sealed, and never hold it readable', () => {
    const sealed = seal.seal('{"refresh_token":"provider-refresh-token"}');
    expect(sealed).not.toContain('provider-refresh-token');
    expect(seal.seal('same')).not.toBe(seal.seal('same'));
    expect(seal.open(sealed)).toBe('{"refresh_token":"provider-refresh-token"}');
  });

  it('refuse a sealed secret changed, or sealed under another key', () => {
    const sealed = seal.seal('secret');
    const [mark, iv, tag, body = ''] = sealed.split('.');
    const flipped = `${mark}.${iv}.${tag}.${body.startsWith('A') ? `B${body.slice(1)}` : `A${body.slice(1)}`}`;
    expect(() => seal.open(flipped)).toThrow();
    expect(() => secretSeal('another-installation-key-of-32-characters!').open(sealed)).toThrow();
    expect(() => seal.open('plain text')).toThrow('not a sealed secret');
  });
});
