import { describe, expect, it } from 'vitest';
import { Dependency, DependencyUnavailableError, ErrorCode, outwardCause, ProblemError } from './errors.ts';

/** What @kubernetes/client-node throws for an answer: the status as `code`, the raw body and headers. */
function apiException(code: number, status: Record<string, unknown>) {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', ...status });
  const headers = { 'audit-id': 'a1b2', 'x-kubernetes-pf-flowschema-uid': 'f00' };
  return Object.assign(
    new Error(
      `HTTP-Code: ${code}\nMessage: Unknown API Status Code!\nBody: ${body}\nHeaders: ${JSON.stringify(headers)}`,
    ),
    { code, body, headers },
  );
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:45053'), { code: 'ECONNREFUSED' });

describe('the outward cause of a failure', () => {
  it.each([
    [
      'a Kubernetes 403 naming the identity',
      apiException(403, {
        reason: 'Forbidden',
        message: 'pods is forbidden: User "arn:aws:sts::123456789012:assumed-role/worker" cannot list',
      }),
      'access denied (HTTP 403)',
    ],
    [
      'a Kubernetes 422',
      apiException(422, { reason: 'Invalid', message: 'spec.x: Invalid value' }),
      'answered HTTP 422 Invalid',
    ],
    [
      'a refused connection',
      new TypeError('fetch failed', { cause: refused() }),
      'connection failed (ECONNREFUSED)',
    ],
    [
      'an AWS AccessDenied with an ARN',
      Object.assign(new Error('User: arn:aws:iam::123456789012:user/x is not authorized to perform'), {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 400 },
      }),
      'access denied',
    ],
    [
      'a timeout',
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
      'no answer in time',
    ],
    ['throttling', Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }), 'throttled'],
    ['an error of our own code', new Error('secret at 10.0.0.1'), 'an unexpected error'],
    ['a typed error', new RangeError('Maximum call stack size exceeded'), 'an unexpected error (RangeError)'],
    ['something not an error', 'a string with 10.0.0.1', 'an unexpected error'],
  ])('is a fixed phrase for %s', (_, error, cause) => {
    expect(outwardCause(error)).toBe(cause);
  });

  it('names the dependency that was unavailable, and why', () => {
    const error = new DependencyUnavailableError(
      Dependency.DynamoDB,
      'connect ECONNREFUSED 127.0.0.1:45053',
      refused(),
    );
    expect(outwardCause(error)).toBe('dynamodb unavailable: connection failed (ECONNREFUSED)');
  });

  it('keeps the message of a problem this service raised on purpose', () => {
    expect(outwardCause(new ProblemError(ErrorCode.NotFound, 'composition "c-1" not found'))).toBe(
      'composition "c-1" not found',
    );
  });
});
