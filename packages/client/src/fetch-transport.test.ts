import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireRequest } from './client.ts';
import { ClientCode } from './errors.ts';
import { fetchTransport } from './fetch-transport.ts';
import { refusal } from './testing/refusal.ts';

const request = (over: Partial<WireRequest> = {}): WireRequest => ({
  operationId: 'getComposition',
  method: 'GET',
  path: '/v1/compositions/c-1',
  query: {},
  headers: {},
  credential: true,
  ...over,
});

/** What the server was sent last. */
let seen: { url: string; headers: IncomingHttpHeaders; body: string } | undefined;
const server = createServer((incoming, outgoing) => {
  let body = '';
  incoming.setEncoding('utf8').on('data', (chunk: string) => {
    body += chunk;
  });
  incoming.on('end', () => {
    seen = { url: incoming.url ?? '', headers: incoming.headers, body };
    outgoing.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"c-1"}');
  });
});
let baseUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('fetchTransport', () => {
  it('sends the token, the query and a JSON body to the base URL and reads the JSON answer', async () => {
    const send = fetchTransport({ baseUrl: `${baseUrl}/`, token: async () => 'svc_token' });
    const answer = await send(
      request({ method: 'POST', path: '/v1/compositions', query: { dry_run: 'true' }, json: { name: 'a' } }),
    );
    expect(answer).toMatchObject({ status: 200, body: { id: 'c-1' } });
    expect(seen?.url).toBe('/v1/compositions?dry_run=true');
    expect(seen?.headers).toMatchObject({
      authorization: 'Bearer svc_token',
      'content-type': 'application/json',
    });
    expect(seen?.body).toBe('{"name":"a"}');
  });

  it('keeps the credential off the operations outside /v1', async () => {
    await fetchTransport({ baseUrl, token: 'svc_token' })(request({ path: '/version', credential: false }));
    expect(seen?.headers.authorization).toBeUndefined();
  });

  it('refuses to send a credential over plain http to another machine, and sends nothing', async () => {
    seen = undefined;
    const error = await refusal(fetchTransport({ baseUrl: 'http://svc.example.com', token: 't' })(request()));
    expect(error.problem).toMatchObject({ code: ClientCode.InsecureTransport, status: null });
    expect(error.request?.path).toBe('/v1/compositions/c-1');
    expect(seen).toBeUndefined();
  });

  it('says the API is unreachable when nothing answers', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await refusal(fetchTransport({ baseUrl: `http://127.0.0.1:${port}` })(request()));
    expect(error.problem).toMatchObject({ code: ClientCode.ApiUnreachable, status: null });
    expect(error.message).toMatch(`cannot reach http://127.0.0.1:${port}`);
  });
});
