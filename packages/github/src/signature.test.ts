import { sign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { webhookVerifier } from './signature.ts';

const current = 'current-secret-0123456789';
const previous = 'previous-secret-0123456789';
const body = '{"action":"labeled","number":1}';

describe('webhookVerifier', () => {
  it('accepts the current secret, and the previous one during a rotation', async () => {
    const verify = webhookVerifier({ current, previous });
    expect(await verify(body, await sign(current, body))).toBe(true);
    expect(await verify(body, await sign(previous, body))).toBe(true);
    expect(await webhookVerifier({ current })(body, await sign(previous, body))).toBe(false);
  });

  it('refuses another body, another secret and malformed signatures', async () => {
    const verify = webhookVerifier({ current });
    const signature = await sign(current, body);
    expect(await verify(`${body} `, signature)).toBe(false);
    expect(await verify(body, await sign('someone-else-0123456789', body))).toBe(false);
    for (const malformed of [
      '',
      'sha256=',
      `sha1=${signature.slice(7)}`,
      `${signature}00`,
      signature.toUpperCase(),
    ]) {
      expect(await verify(body, malformed)).toBe(false);
    }
  });
});
