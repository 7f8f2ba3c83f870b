import { describe, expect, it } from 'vitest';
import { parseEnvironment, SettingsError } from '../settings.ts';
import { authEnvironment } from './settings.ts';

const parse = (env: Record<string, string>, allowDev = false) =>
  parseEnvironment(authEnvironment({ allowDev }), env);
const origin = { public_origin: 'https://svc.acme.io' };

describe('the auth part of the settings', () => {
  it('needs an explicit mode, and never dev where dev is not allowed', () => {
    expect(() => parse({}, true)).toThrow(SettingsError);
    expect(() => parse({}, true)).toThrow(/AUTH_MODE must be set explicitly to one of "dev", "token"/);
    expect(() => parse({ AUTH_MODE: 'open' })).toThrow(/AUTH_MODE must be set explicitly to one of "token"/);
    expect(() => parse({ AUTH_MODE: 'dev' })).toThrow(/AUTH_MODE dev is for local development only/);
    expect(parse({ AUTH_MODE: 'dev' }, true)).toMatchObject({
      mode: 'dev',
      limits: { mutations_per_minute: 120 },
    });
    expect(() => parse({ AUTH_MODE: 'anonymous' })).toThrow(/AUTH_SETTINGS\.public_origin is needed/);
    expect(
      parse({
        AUTH_MODE: 'anonymous',
        AUTH_SETTINGS: JSON.stringify({ public_origin: 'https://svc.acme.io/x' }),
      }),
    ).toMatchObject({
      mode: 'anonymous',
      publicOrigin: 'https://svc.acme.io',
      grants: [{ role: 'developer', project: '*', repository: null }],
      limits: { mutations_per_minute: 120, sign_ins_per_5_minutes: 10, live_compositions_per_project: 50 },
    });
  });

  it('needs the secrets of shared-token and oidc modes, and valid settings, all named at once', () => {
    expect(() =>
      parse({ AUTH_MODE: 'shared-token', AUTH_SHARED_TOKEN: 'short', AUTH_SETTINGS: JSON.stringify(origin) }),
    ).toThrow(/AUTH_SHARED_TOKEN must be at least 32 characters/);
    const oidc = JSON.stringify({ ...origin, oidc: { issuer: 'https://id.example.com', client_id: 'svc' } });
    expect(() => parse({ AUTH_MODE: 'oidc', AUTH_SETTINGS: oidc })).toThrow(/OIDC_CLIENT_SECRET is needed/);
    expect(parse({ AUTH_MODE: 'oidc', AUTH_SETTINGS: oidc, OIDC_CLIENT_SECRET: ' s ' })).toMatchObject({
      mode: 'oidc',
      oidc: { username_claim: 'preferred_username', client_secret: 's' },
    });
    expect(() =>
      parse({ AUTH_MODE: 'token', AUTH_SETTINGS: '{"limits":{"mutations_per_minute":0}}' }),
    ).toThrow(/AUTH_SETTINGS\.limits\.mutations_per_minute/);
    let error: unknown;
    try {
      parse({ AUTH_MODE: 'oidc', AUTH_SETTINGS: '{}' });
    } catch (thrown) {
      error = thrown;
    }
    expect((error as SettingsError).problems.map((p) => p.variable)).toEqual([
      'AUTH_SETTINGS.public_origin',
      'AUTH_SETTINGS.oidc',
      'OIDC_CLIENT_SECRET',
    ]);
  });

  it('reads a blank AUTH_SETTINGS as no settings, and refuses one that is not JSON without quoting it', () => {
    expect(parse({ AUTH_MODE: 'dev', AUTH_SETTINGS: '  ' }, true).mode).toBe('dev');
    const secret = 'not-json-but-a-secret-0123456789';
    expect(() => parse({ AUTH_MODE: 'token', AUTH_SETTINGS: secret })).toThrow(/AUTH_SETTINGS must be JSON$/);
    expect(() =>
      parse({ AUTH_MODE: 'shared-token', AUTH_SHARED_TOKEN: secret.slice(0, 20), AUTH_SETTINGS: '{}' }),
    ).not.toThrow(new RegExp(secret.slice(0, 20)));
  });
});
