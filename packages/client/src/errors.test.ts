import { describe, expect, it } from 'vitest';
import { ApiError, ClientCode, clientProblem, isProblem, problemBuilder } from './errors.ts';

describe('problemBuilder', () => {
  it('says a program’s own problem in the server’s shape, linked to its section of the program’s page', () => {
    const problem = problemBuilder('cli.md', { usage: 'Usage error' });
    expect(
      problem('usage', '--ttl is not a duration', [{ path: '--ttl', message: 'is not a duration' }]),
    ).toEqual({
      type: '/docs/cli.md#usage',
      title: 'Usage error',
      status: null,
      detail: '--ttl is not a duration',
      code: 'usage',
      errors: [{ path: '--ttl', message: 'is not a duration' }],
    });
    expect(clientProblem(ClientCode.ApiTimeout, 'no answer in 30s')).toMatchObject({
      type: '/docs/ci.md#api_timeout',
      title: 'API did not answer in time',
      errors: [],
    });
  });
});

describe('ApiError', () => {
  it('is recognised whichever copy of the module made it (a bundle carries its own)', () => {
    const error = new ApiError(clientProblem(ClientCode.ApiUnreachable, 'cannot reach it'));
    const fromAnotherCopy = Object.assign(Object.create(Error.prototype), {
      [Symbol.for('svc.api-error')]: true,
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(fromAnotherCopy).toBeInstanceOf(ApiError);
    expect(new Error('plain')).not.toBeInstanceOf(ApiError);
    expect(error.status).toBeNull();
    expect(error.code).toBe('api_unreachable');
  });

  it('takes a body for the server’s problem only when it has a code and a status', () => {
    expect(isProblem({ code: 'not_found', status: 404, detail: 'x' })).toBe(true);
    expect(isProblem({ code: 'not_found' })).toBe(false);
    expect(isProblem('Not Found')).toBe(false);
    expect(isProblem(null)).toBe(false);
  });
});
