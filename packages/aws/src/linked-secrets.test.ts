import { describe, expect, it } from 'vitest';
import { loadLinkedSecrets } from './linked-secrets.ts';

// SST's links as a function reads them (tests/lambda.test.ts goes through SST's own Resource).
const links = { CursorKey: { value: 'c'.repeat(48) }, ForgeAppId: { value: '' } };

describe('loadLinkedSecrets', () => {
  it('fills each variable SVC_SECRETS names from its linked secret, leaving unset optional ones and set variables alone', () => {
    const env: Record<string, string | undefined> = {
      SVC_SECRETS: JSON.stringify({
        CURSOR_KEY: 'CursorKey',
        FORGE_APP_ID: 'ForgeAppId',
        TABLE_NAME: 'CursorKey',
      }),
      TABLE_NAME: 'kept',
    };
    loadLinkedSecrets(env, links);
    expect(env).toEqual({ SVC_SECRETS: env.SVC_SECRETS, TABLE_NAME: 'kept', CURSOR_KEY: 'c'.repeat(48) });
  });

  it('names a secret the function was not linked to, and does nothing without SVC_SECRETS', () => {
    expect(() =>
      loadLinkedSecrets({ SVC_SECRETS: JSON.stringify({ FORGE_PRIVATE_KEY: 'ForgePrivateKey' }) }, links),
    ).toThrow(
      'invalid environment: FORGE_PRIVATE_KEY is to come from secret ForgePrivateKey, which is not linked',
    );
    const env = { TABLE_NAME: 't' };
    loadLinkedSecrets(env, links);
    expect(env).toEqual({ TABLE_NAME: 't' });
  });
});
