/**
 * Two-step confirmation of destructive tools, enforced here rather than trusted to the client: the
 * first call answers what would happen and a token; only a second call carrying that token acts.
 * A token is an HMAC over the exact action — tool, session, composition, the generation it was
 * shown at, the arguments — and its expiry, so it confirms nothing else, for no one else, and not
 * for long. The key is per process for `svc mcp`; the API's is derived from the installation's
 * secret, so any instance can check what another issued.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { contentHash } from '@svc/core';

export const confirmationLifetimeSeconds = 120;

/** What a confirmation is for. */
export interface Action {
  tool: string;
  /** The agent session (see docs/mcp.md): a token issued to one session confirms nothing in another. */
  session: string;
  /** The composition acted on. */
  target: string;
  /** Its generation when the agent was shown the effect. */
  generation: number;
  arguments: unknown;
}

type Verdict =
  | { valid: true; generation: number }
  | { valid: false; reason: 'malformed' | 'mismatch' | 'expired' };

export interface Confirmations {
  issue(action: Action): { token: string; expires_at: string };
  /** Checks a token against the action being asked for now; the generation it names is the caller's to compare. */
  verify(action: Omit<Action, 'generation'>, token: string): Verdict;
}

const tokenShape = /^(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export function confirmations(key: Uint8Array, now: () => number = Date.now): Confirmations {
  const mac = (action: Action, expires: number) =>
    createHmac('sha256', key)
      .update(contentHash({ ...action, expires }))
      .digest();
  return {
    issue(action) {
      const expires = Math.floor(now() / 1000) + confirmationLifetimeSeconds;
      return {
        token: `${expires}.${action.generation}.${mac(action, expires).toString('base64url')}`,
        expires_at: new Date(expires * 1000).toISOString(),
      };
    },
    verify(action, token) {
      const parts = tokenShape.exec(token);
      if (!parts) return { valid: false, reason: 'malformed' };
      const [, expiresText, generationText, given] = parts as unknown as [string, string, string, string];
      const expires = Number(expiresText);
      const generation = Number(generationText);
      const expected = mac({ ...action, generation }, expires);
      const presented = Buffer.from(given, 'base64url');
      // Only the canonical spelling: a last character differing in its unused bits is another token.
      const canonical = presented.toString('base64url') === given;
      if (!canonical || presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
        return { valid: false, reason: 'mismatch' };
      }
      if (expires * 1000 <= now()) return { valid: false, reason: 'expired' };
      return { valid: true, generation };
    },
  };
}
