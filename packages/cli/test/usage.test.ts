/**
 * Local validation mirrors the server's rules and fails before any request: every case here runs
 * against a recording stand-in API and asserts it received nothing, exit 2, a problem on stderr
 * naming the flag, and nothing on stdout. The flag cases run the CLI's entry in process (they are
 * about parsing); those reading stdin or the environment run the executable.
 */
import { image } from '@svc/local/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, recordingServer, svc, svcInProcess } from './helpers.ts';

let api: Awaited<ReturnType<typeof recordingServer>>;
beforeAll(async () => {
  await ensureBuilt();
  api = await recordingServer();
});
afterAll(() => api.close());

const create = (...flags: string[]) => ['composition', 'create', '--name', 'feature-x', ...flags];
const update = (...flags: string[]) => [
  'composition',
  'update',
  'c-abc',
  '--expected-generation',
  '1',
  ...flags,
];

async function refused(args: string[], path: string, message: RegExp) {
  const before = api.requests.length;
  const result = await svcInProcess(args, { apiUrl: api.url });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  const problem = result.problem();
  expect(problem).toMatchObject({ status: null, type: expect.stringMatching(/^\/docs\/cli\.md#/) });
  expect(['usage', 'invalid_argument', 'file_unreadable']).toContain(problem.code);
  expect(problem.detail).toContain(path);
  expect(problem.detail).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(api.requests.length, 'no request may be sent').toBe(before);
  return problem;
}

describe('composition create: local validation before any request', () => {
  it.each([
    ['--name is required', ['composition', 'create', '--image', image('service-b')], '--name', /required/],
    ['--name must be a DNS label', create('--name', 'Feature_X', '--inherit-all'), '--name', /DNS label/],
    ['--project must be a DNS label', create('--project', 'Demo', '--inherit-all'), '--project', /DNS label/],
    [
      '--baseline must be a DNS label',
      create('--baseline', 'st aging', '--inherit-all'),
      '--baseline',
      /DNS/,
    ],
    ['a selection is required', create(), '--inherit-all', /choose the overrides/],
    [
      '--inherit-all excludes --image',
      create('--inherit-all', '--image', image('service-b')),
      '--inherit-all',
      /--image/,
    ],
    [
      '--inherit-all excludes --override',
      create('--inherit-all', '--override', `service-a=${image('service-a')}`),
      '--inherit-all',
      /--override/,
    ],
    [
      '--inherit-all excludes --build',
      create('--inherit-all', '--build', 'service-a=b-1'),
      '--inherit-all',
      /--build/,
    ],
    [
      '--inherit-all excludes --component',
      create('--inherit-all', '--component', 'service-a'),
      '--inherit-all',
      /--component/,
    ],
    [
      '--component needs --image',
      create('--component', 'service-a', '--build', 'service-c=b-1'),
      '--component',
      /--image/,
    ],
    ['--image must be fully qualified', create('--image', 'nginx:1'), '--image', /not fully qualified/],
    ['--image needs a tag or digest', create('--image', 'registry.example.com/demo/b'), '--image', /tag/],
    ['--override needs component=image', create('--override', 'service-a'), '--override', /component=image/],
    ['--override image syntax', create('--override', 'service-a=nginx'), '--override', /fully qualified/],
    ['--override component name', create('--override', `Service_A=${image('a')}`), '--override', /DNS label/],
    ['--build needs component=build_id', create('--build', 'b-123'), '--build', /component=build_id/],
    [
      'a component chosen twice',
      create(
        '--image',
        image('service-b'),
        '--component',
        'service-b',
        '--override',
        `service-b=${image('service-b', '3')}`,
      ),
      '--override',
      /already selected by --image/,
    ],
    [
      'at most three distinct components across --override and --build',
      create(
        '--override',
        `service-a=${image('service-a')}`,
        '--override',
        `service-b=${image('service-b')}`,
        '--build',
        'service-c=b-1',
        '--build',
        'service-d=b-2',
      ),
      '--override',
      /at most 3 components .*got 4/,
    ],
    ['--ttl syntax', create('--inherit-all', '--ttl', '2 hours'), '--ttl', /not a duration/],
    ['--ttl decimals', create('--inherit-all', '--ttl', '1.5h'), '--ttl', /not a duration/],
    ['--ttl at most 24h', create('--inherit-all', '--ttl', '25h'), '--ttl', /from 1m to 24h; got 25h/],
    ['--ttl at least 1m', create('--inherit-all', '--ttl', '30s'), '--ttl', /from 1m to 24h/],
    [
      '--expected-preview-revision needs component=revision',
      create('--inherit-all', '--expected-preview-revision', 'service-b'),
      '--expected-preview-revision',
      /component=revision/,
    ],
    [
      '--expected-preview-revision is a whole number',
      create('--inherit-all', '--expected-preview-revision', 'service-b=two'),
      '--expected-preview-revision',
      /whole number/,
    ],
    [
      '--idempotency-key is printable ASCII',
      create('--inherit-all', '--idempotency-key', 'clé'),
      '--idempotency-key',
      /printable ASCII/,
    ],
    [
      '--idempotency-key at most 128 characters',
      create('--inherit-all', '--idempotency-key', 'k'.repeat(129)),
      '--idempotency-key',
      /1–128/,
    ],
    ['an unknown flag', create('--inherit-all', '--colour'), '--colour', /Unknown option/],
    ['a string flag without a value', create('--inherit-all', '--ttl'), '--ttl', /argument missing/],
  ])('%s', async (_name, args, path, message) => {
    await refused(args as string[], path as string, message as RegExp);
  });
});

describe('composition update: local validation before any request', () => {
  it.each([
    [
      '--expected-generation is required',
      ['composition', 'update', 'c-abc', '--inherit-all'],
      '--expected-generation',
      /required/,
    ],
    [
      '--expected-generation is a whole number',
      ['composition', 'update', 'c-abc', '--expected-generation', 'latest', '--inherit-all'],
      '--expected-generation',
      /whole number/,
    ],
    [
      '--expected-generation is at least 1',
      ['composition', 'update', 'c-abc', '--expected-generation', '0', '--inherit-all'],
      '--expected-generation',
      /from 1/,
    ],
    ['the full desired set is required', update(), '--inherit-all', /choose the overrides/],
    [
      '--inherit-all is exclusive',
      update('--inherit-all', '--image', image('service-b')),
      '--inherit-all',
      /--image/,
    ],
    ['--override image syntax', update('--override', 'service-a=nginx:1'), '--override', /fully qualified/],
    [
      'at most three distinct components',
      update(
        '--image',
        image('service-b'),
        '--override',
        `service-a=${image('service-a')}`,
        '--override',
        `service-c=${image('service-c')}`,
        '--override',
        `service-d=${image('service-d')}`,
      ),
      '--override',
      /got 4/,
    ],
    [
      '<id> is required',
      ['composition', 'update', '--expected-generation', '1', '--inherit-all'],
      '<id>',
      /missing/,
    ],
    [
      '<id> is a DNS label',
      ['composition', 'update', 'C/../x', '--expected-generation', '1', '--inherit-all'],
      '<id>',
      /DNS/,
    ],
  ])('%s', async (_name, args, path, message) => {
    await refused(args as string[], path as string, message as RegExp);
  });
});

describe('other commands: local validation before any request', () => {
  it.each([
    [
      'wait --timeout at most 60s',
      ['composition', 'wait', 'c-abc', '--timeout', '61s'],
      '--timeout',
      /from 1s to 1m/,
    ],
    [
      'wait --timeout syntax',
      ['composition', 'wait', 'c-abc', '--timeout', '30'],
      '--timeout',
      /not a duration/,
    ],
    ['wait needs <id>', ['composition', 'wait'], '<id>', /missing/],
    [
      'logs --tail-lines at most 1000',
      ['composition', 'logs', 'c-abc', '--tail-lines', '1001'],
      '--tail-lines',
      /1 to 1000/,
    ],
    [
      'logs --tail-lines whole number',
      ['composition', 'logs', 'c-abc', '--tail-lines', '-5'],
      '--tail-lines',
      /./,
    ],
    [
      'logs --max-bytes at most 262144',
      ['composition', 'logs', 'c-abc', '--max-bytes', '262145'],
      '--max-bytes',
      /262144/,
    ],
    [
      'logs --since at most 24h',
      ['composition', 'logs', 'c-abc', '--since', '25h'],
      '--since',
      /from 1s to 24h/,
    ],
    [
      'logs --since whole seconds',
      ['composition', 'logs', 'c-abc', '--since', '1.5s'],
      '--since',
      /not a duration/,
    ],
    [
      'logs --component name',
      ['composition', 'logs', 'c-abc', '--component', 'B'],
      '--component',
      /DNS label/,
    ],
    [
      'events --limit at most 200',
      ['composition', 'events', 'c-abc', '--limit', '201'],
      '--limit',
      /1 to 200/,
    ],
    [
      'verification --after is a cursor',
      ['composition', 'verification', 'c-abc', '--after', 'a b'],
      '--after',
      /cursor/,
    ],
    ['list --project name', ['composition', 'list', '--project', 'DEMO'], '--project', /DNS label/],
    ['plan --file is required', ['composition', 'plan'], '--file', /required/],
    [
      'plan --file must exist',
      ['composition', 'plan', '--file', '/nonexistent/body.json'],
      '--file',
      /no such file/,
    ],
    ['source list --project is required', ['source', 'list'], '--project', /required/],
    [
      'source list --commit is a full SHA',
      ['source', 'list', '--project', 'demo', '--commit', 'abc'],
      '--commit',
      /40/,
    ],
    [
      'source list --repository is owner/name',
      ['source', 'list', '--project', 'demo', '--repository', 'x'],
      '--repository',
      /owner\/name/,
    ],
    ['catalog validate --file is required', ['catalog', 'validate'], '--file', /required/],
    ['an unknown command', ['composition', 'frobnicate'], 'frobnicate', /unknown command/],
    ['an extra argument', ['composition', 'get', 'c-abc', 'c-def'], 'c-def', /unexpected argument/],
  ])('%s', async (_name, args, path, message) => {
    await refused(args as string[], path as string, message as RegExp);
  });

  it('plan --file checks the body shape as the server does, naming the field', async () => {
    const result = await svc(['composition', 'plan', '--file', '-'], {
      apiUrl: api.url,
      stdin: JSON.stringify({ project: 'demo', baseline: 'staging', name: 'x', colour: 'blue' }),
    });
    expect(result.code).toBe(2);
    expect(result.problem()).toMatchObject({
      code: 'invalid_argument',
      errors: [{ path: '--file/colour', message: 'unknown field "colour"' }],
    });
    expect(api.requests).toHaveLength(0);
  });

  it('plan --file that is not JSON names the flag', async () => {
    const result = await svc(['composition', 'plan', '--file', '-'], { apiUrl: api.url, stdin: '{nope' });
    expect(result.code).toBe(2);
    expect(result.problem().detail).toMatch(/^--file: -: not valid JSON/);
  });

  it.each([
    ['SVC_API_URL not a URL', { SVC_API_URL: 'localhost:8081' }, 'SVC_API_URL'],
    ['SVC_API_URL not http', { SVC_API_URL: 'ftp://127.0.0.1:21' }, 'SVC_API_URL'],
    ['SVC_API_TOKEN with a space', { SVC_API_TOKEN: 'two words' }, 'SVC_API_TOKEN'],
    ['SVC_API_TOKEN_FILE missing', { SVC_API_TOKEN_FILE: '/nonexistent/token' }, 'SVC_API_TOKEN_FILE'],
    ['SVC_HTTP_TIMEOUT not a duration', { SVC_HTTP_TIMEOUT: 'soon' }, 'SVC_HTTP_TIMEOUT'],
  ])('a bad environment variable is named: %s', async (_name, env, variable) => {
    const before = api.requests.length;
    const result = await svc(['composition', 'list'], { env: { SVC_API_URL: api.url, ...env } });
    expect(result.code).toBe(2);
    expect(result.problem()).toMatchObject({ code: 'invalid_environment', errors: [{ path: variable }] });
    expect(api.requests.length).toBe(before);
  });
});
