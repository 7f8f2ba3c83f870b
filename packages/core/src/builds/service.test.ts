import { describe, expect, it } from 'vitest';
import { refCandidates } from './service.ts';

describe('refCandidates', () => {
  it('tries a short ref exactly, then as a tag, then as a branch (git order)', () => {
    expect(refCandidates('main')).toEqual(['main', 'refs/tags/main', 'refs/heads/main']);
  });
  it('matches a full branch or tag ref and its short form, never the other kind', () => {
    expect(refCandidates('refs/heads/main')).toEqual(['refs/heads/main', 'main']);
    expect(refCandidates('refs/tags/v1.2.0')).toEqual(['refs/tags/v1.2.0', 'v1.2.0']);
  });
  it('takes other full refs as they are', () => {
    expect(refCandidates('refs/pull/7/head')).toEqual(['refs/pull/7/head']);
  });
});
