import { describe, expect, it } from 'vitest';
import { keyWords, RefusedContent, refusedContent, refusedKey, secretShape } from './refusal.ts';

describe('draft refusal', () => {
  it('splits keys into words whatever their case style', () => {
    expect(keyWords('apiKey')).toEqual(['api', 'key']);
    expect(keyWords('API_KEY')).toEqual(['api', 'key']);
    expect(keyWords('envFrom')).toEqual(['env', 'from']);
    expect(keyWords('HTTPProxy')).toEqual(['http', 'proxy']);
  });

  it.each([
    ['env', RefusedContent.EnvironmentValues],
    ['ENV_VARS', RefusedContent.EnvironmentValues],
    ['environment', RefusedContent.EnvironmentValues],
    ['envFrom', RefusedContent.EnvironmentValues],
    ['values', RefusedContent.EnvironmentValues],
    ['configMapValues', RefusedContent.ConfigMapValues],
    ['config_map', RefusedContent.ConfigMapValues],
    ['configmaps', RefusedContent.ConfigMapValues],
    ['secretRef', RefusedContent.Credentials],
    ['db_password', RefusedContent.Credentials],
    ['token', RefusedContent.Credentials],
    ['accessToken', RefusedContent.Credentials],
    ['credentials', RefusedContent.Credentials],
    ['api_key', RefusedContent.Credentials],
    ['privateKey', RefusedContent.Credentials],
    ['kubeconfig', RefusedContent.Credentials],
    ['auth', RefusedContent.Credentials],
    ['secret_env', RefusedContent.Credentials],
    ['messaging', RefusedContent.MessagingConfiguration],
    ['topics', RefusedContent.MessagingConfiguration],
    ['queue_url', RefusedContent.MessagingConfiguration],
    ['message_subscriptions', RefusedContent.MessagingConfiguration],
    ['sqs', RefusedContent.MessagingConfiguration],
  ])('refuses the key %s as %s', (key, code) => {
    expect(refusedKey(key)?.code).toBe(code);
  });

  it.each([
    'workloads',
    'repository',
    'namespace',
    'baseline',
    'port',
    'service',
    'image',
    'authors',
    'envoy_sidecar',
    'value',
    'entry_component',
  ])('keeps the key %s', (key) => {
    expect(refusedKey(key)).toBeNull();
  });

  it.each([
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE…', 'a PEM block (key or certificate)'],
    ['AKIAIOSFODNN7EXAMPLE', 'an AWS access key id'],
    [`ghp_${'a'.repeat(36)}`, 'a GitHub token'],
    ['postgres://app:hunter2@db.internal:5432/app', 'a URL with a password'],
    [
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'a JSON Web Token',
    ],
    ['DATABASE_URL=postgres://db/app', 'an environment assignment (NAME=value)'],
  ])('refuses a string that looks like a secret: %s', (text, what) => {
    expect(secretShape(text)?.what).toBe(what);
  });

  it.each([
    'registry.example.com/demo/service-b:1.0.0',
    'https://db.internal:5432/app',
    'app=web',
    'staging',
  ])('keeps the string %s', (text) => {
    expect(secretShape(text)).toBeNull();
  });

  it('names every refused path at any depth, once per refused key', () => {
    const found = refusedContent(
      {
        workloads: [{ name: 'web', env: [{ name: 'A', value: 'b' }] }],
        nested: { deeper: { Password: 'x', note: 'AKIAIOSFODNN7EXAMPLE' } },
        'a/b': { topic: 'orders' },
      },
      '/configuration',
    );
    expect(found).toEqual([
      { path: '/configuration/workloads/0/env', code: 'environment_values', message: expect.any(String) },
      { path: '/configuration/nested/deeper/Password', code: 'credentials', message: expect.any(String) },
      {
        path: '/configuration/nested/deeper/note',
        code: 'secret_value',
        message: 'looks like an AWS access key id',
      },
      { path: '/configuration/a~1b/topic', code: 'messaging_configuration', message: expect.any(String) },
    ]);
  });
});

describe('scanning untrusted text', () => {
  // How long such scans take is measured by `npm run bench:text`, not here.
  const fill = (unit: string) => unit.repeat(Math.ceil((64 * 1024) / unit.length)).slice(0, 64 * 1024);

  it('still finds what it looks for in such text', () => {
    expect(secretShape(`${fill('a.')} postgres://app:hunter2@db/app`)?.what).toBe('a URL with a password');
    expect(secretShape(`${fill('\n')}  export API_URL=x`)?.code).toBe('environment_values');
    expect(keyWords(`${'A'.repeat(1000)}Proxy`)).toEqual(['a'.repeat(1000), 'proxy']);
  });
});
