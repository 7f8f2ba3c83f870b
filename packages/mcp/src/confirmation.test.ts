import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Action, confirmationLifetimeSeconds, confirmations } from './confirmation.ts';

const action: Action = {
  tool: 'composition_destroy',
  session: 'session-a',
  target: 'c-abc',
  generation: 3,
  arguments: {},
};
const { generation: _, ...request } = action;

function clock(start = Date.parse('2026-11-26T10:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('confirmations', () => {
  it('confirm the action they were issued for, naming its generation', () => {
    const signer = confirmations(randomBytes(32));
    const { token, expires_at } = signer.issue(action);
    expect(signer.verify(request, token)).toEqual({ valid: true, generation: 3 });
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(confirmationLifetimeSeconds * 1000);
  });

  it('confirm nothing else: another tool, composition, session, arguments or key', () => {
    const key = randomBytes(32);
    const { token } = confirmations(key).issue(action);
    const signer = confirmations(key);
    for (const other of [
      { ...request, tool: 'composition_update' },
      { ...request, target: 'c-abd' },
      { ...request, session: 'session-b' },
      { ...request, arguments: { overrides: {} } },
    ]) {
      expect(signer.verify(other, token)).toEqual({ valid: false, reason: 'mismatch' });
    }
    expect(confirmations(randomBytes(32)).verify(request, token)).toEqual({
      valid: false,
      reason: 'mismatch',
    });
  });

  it('cannot be moved to another generation or expiry by editing the token', () => {
    const signer = confirmations(randomBytes(32));
    const [expires, generation, mac] = signer.issue(action).token.split('.') as [string, string, string];
    expect(signer.verify(request, [expires, Number(generation) + 1, mac].join('.'))).toMatchObject({
      valid: false,
    });
    expect(signer.verify(request, [Number(expires) + 600, generation, mac].join('.'))).toMatchObject({
      valid: false,
    });
    expect(signer.verify(request, 'not-a-token')).toEqual({ valid: false, reason: 'malformed' });
  });

  it('expire after two minutes', () => {
    const time = clock();
    const signer = confirmations(randomBytes(32), time.now);
    const { token } = signer.issue(action);
    time.advance(confirmationLifetimeSeconds * 1000 - 1000);
    expect(signer.verify(request, token)).toMatchObject({ valid: true });
    time.advance(1000);
    expect(signer.verify(request, token)).toEqual({ valid: false, reason: 'expired' });
  });
});
