import { ErrorCode, ProblemError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { filterQuery, matches, parseFilter } from './filters.ts';
import { createBody, fieldsOf, logQuery, updateBody } from './forms.ts';
import { safeReturnTo } from './pages/sign-in.ts';
import { issueBody } from './pages/tokens.ts';

describe('create and update forms', () => {
  it('rows with a component become overrides; empty rows are left out', () => {
    expect(
      createBody({
        project: 'demo',
        baseline: 'staging',
        name: ' my-feature ',
        ttl: '2h',
        override_component_0: 'service-b',
        override_image_0: 'registry.example.com/demo/service-b:2.0.0',
        override_component_1: '',
        override_image_1: 'ignored',
        override_component_2: 'service-c',
        override_build_id_2: 'b-123',
        message_isolation: 'on',
      }),
    ).toEqual({
      project: 'demo',
      baseline: 'staging',
      name: 'my-feature',
      ttl: '2h',
      overrides: {
        'service-b': { image: 'registry.example.com/demo/service-b:2.0.0' },
        'service-c': { build_id: 'b-123' },
      },
      message_isolation: true,
    });
  });

  it('a row with neither image nor build id stays, for the planner to name as a blocker', () => {
    expect(createBody({ override_component_0: 'service-b' }).overrides).toEqual({ 'service-b': {} });
  });

  it('a reserved key is refused as the JSON routes refuse it, naming it', () => {
    const refusal = (() => {
      try {
        createBody({ override_component_0: '__proto__', override_image_0: 'registry.example.com/x:1' });
      } catch (error) {
        return error;
      }
    })() as ProblemError;
    expect(refusal.code).toBe(ErrorCode.ValidationFailed);
    expect(refusal.errors[0]?.path).toBe('/overrides/__proto__');
  });

  it('no TTL leaves the default to the use case', () => {
    expect(createBody({ ttl: ' ' })).not.toHaveProperty('ttl');
  });

  it('update carries the expected generation as a number, and a malformed one as sent', () => {
    expect(updateBody({ expected_generation: '3' }).expected_generation).toBe(3);
    expect(updateBody({ expected_generation: 'x' }).expected_generation).toBe('x');
  });

  it('the update form starts from the current overrides and generation', () => {
    const view = {
      generation: 4,
      overrides: { 'service-b': { image: 'registry.example.com/b:1', build_id: null } },
    } as unknown as Parameters<typeof fieldsOf>[0];
    expect(fieldsOf(view)).toEqual({
      expected_generation: '4',
      override_component_0: 'service-b',
      override_image_0: 'registry.example.com/b:1',
      override_build_id_0: '',
    });
  });
});

describe('logs form', () => {
  it('defaults to 200 lines, no since, current container', () => {
    expect(logQuery({})).toEqual({ tail_lines: 200, since_seconds: null, max_bytes: 65536, previous: false });
  });

  it('takes tail, since and previous within bounds', () => {
    expect(logQuery({ tail_lines: '50', since_seconds: '600', previous: 'on' })).toMatchObject({
      tail_lines: 50,
      since_seconds: 600,
      previous: true,
    });
  });

  it('refuses out-of-bound numbers naming the field', () => {
    const refusal = (() => {
      try {
        logQuery({ tail_lines: '5000' });
      } catch (error) {
        return error;
      }
    })() as ProblemError;
    expect(refusal).toBeInstanceOf(ProblemError);
    expect(refusal.code).toBe(ErrorCode.InvalidQuery);
    expect(refusal.errors[0]?.path).toBe('tail_lines');
  });
});

describe('list filters', () => {
  const view = (phase: string, kind: string, subject: string) =>
    ({ phase, owner: { kind, subject } }) as unknown as Parameters<typeof matches>[0];

  it('unknown values mean no filter', () => {
    expect(parseFilter({ project: 'Bad Name', phase: 'sleeping', owner: 'everyone' })).toEqual({
      project: null,
      phase: null,
      owner: '',
    });
  });

  it('filters by phase and by owner', () => {
    const filter = parseFilter({ phase: 'ready', owner: 'me' });
    expect(matches(view('ready', 'user', 'user:bob'), filter, 'user:bob')).toBe(true);
    expect(matches(view('ready', 'user', 'user:alice'), filter, 'user:bob')).toBe(false);
    expect(matches(view('failed', 'user', 'user:bob'), filter, 'user:bob')).toBe(false);
    const forge = parseFilter({ owner: 'forge' });
    expect(matches(view('ready', 'forge', 'acme/shop#1'), forge, 'user:bob')).toBe(true);
    expect(matches(view('ready', 'user', 'user:bob'), forge, 'user:bob')).toBe(false);
  });

  it('the query reproduces the filter and the page', () => {
    expect(filterQuery(parseFilter({ project: 'demo', owner: 'people' }), 'abc')).toBe(
      '?project=demo&owner=people&after=abc',
    );
    expect(filterQuery(parseFilter({}))).toBe('');
  });
});

it('sign-in only returns to console pages', () => {
  expect(safeReturnTo('/console/compositions/c-1')).toBe('/console/compositions/c-1');
  for (const bad of ['https://evil.example/', '//evil.example/console/', '/v1/tokens', undefined]) {
    expect(safeReturnTo(bad)).toBe('/console/compositions');
  }
});

it('the token form makes one grant, any project by default', () => {
  expect(issueBody({ name: 'ci', role: 'developer', project: '', expires_in_days: '30' })).toEqual({
    name: 'ci',
    grants: [{ role: 'developer', project: '*', repository: null }],
    expires_in_days: 30,
  });
});
