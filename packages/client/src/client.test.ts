import { operations } from '@svc/contract';
import { describe, expect, it } from 'vitest';
import { bindClient, type WireAnswer, type WireRequest } from './client.ts';
import { ClientCode } from './errors.ts';
import { refusal } from './testing/refusal.ts';

/** A transport that answers `answer` and keeps what it was asked to send. */
function answering(answer: WireAnswer) {
  const sent: WireRequest[] = [];
  const client = bindClient(operations, async (request) => {
    sent.push(request);
    return answer;
  });
  return { client, sent };
}

const ok = (body: unknown): WireAnswer => ({ status: 200, headers: {}, body });

describe('bindClient', () => {
  it('fills the path, writes the query as text and sends the credential only inside /v1', async () => {
    const { client, sent } = answering(ok({ items: [], next_cursor: null }));
    await client.call('listCompositions', { query: { project: 'demo', limit: 10 } });
    await client.send('getVersion');
    expect(sent.map(({ method, path, query, credential }) => ({ method, path, query, credential }))).toEqual([
      { method: 'GET', path: '/v1/compositions', query: { project: 'demo', limit: '10' }, credential: true },
      { method: 'GET', path: '/version', query: {}, credential: false },
    ]);
  });

  it('refuses input that breaks the operation’s schema, naming the field, and sends nothing', async () => {
    const { client, sent } = answering(ok({}));
    const badId = await refusal(client.call('getComposition', { path: { id: '../etc' } }));
    expect(badId.problem).toMatchObject({
      code: ClientCode.InvalidInput,
      status: null,
      type: '/docs/ci.md#invalid_input',
      errors: [{ path: 'id' }],
    });
    const badLimit = await refusal(client.call('listCompositions', { query: { limit: 0 } }));
    expect(badLimit.problem.errors.map((e) => e.path)).toEqual(['limit']);
    expect(badLimit.message).toMatch(/nothing was sent$/);
    expect(sent).toEqual([]);
  });

  it('throws the server’s problem as received, with the request and what its challenge said', async () => {
    const problem = {
      type: '/docs/errors.md#unauthenticated',
      title: 'Unauthenticated',
      status: 401,
      detail: 'a credential is required',
      code: 'unauthenticated',
      errors: [],
    };
    const { client } = answering({
      status: 401,
      headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="the token expired"' },
      body: problem,
    });
    const error = await refusal(client.call('getComposition', { path: { id: 'c-1' } }));
    expect(error.problem).toEqual(problem);
    expect(error.status).toBe(401);
    expect(error.request).toEqual({
      operationId: 'getComposition',
      method: 'GET',
      path: '/v1/compositions/c-1',
    });
    expect(error.challenge).toEqual({ error: 'invalid_token', error_description: 'the token expired' });
  });

  it('calls an answer the operation does not document unexpected, with its status', async () => {
    const { client } = answering({ status: 502, headers: {}, body: '<html>Bad gateway</html>' });
    const error = await refusal(client.call('getComposition', { path: { id: 'c-1' } }));
    expect(error.problem).toMatchObject({ code: ClientCode.UnexpectedResponse, status: 502 });
    expect(error.message).toBe(
      'GET /v1/compositions/c-1 answered 502 with an answer the operation does not document',
    );
  });
});
