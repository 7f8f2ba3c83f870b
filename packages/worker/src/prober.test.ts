import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpProbe } from './prober.ts';

let server: Server;
let port: number;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.headers.host}${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('the routing check’s request', () => {
  it('reaches a preview on a loopback gateway only where the stage says it may', async () => {
    seen.length = 0;
    const url = `http://c-1.preview.localhost:${port}/path?x=1`;
    expect(await httpProbe({ privateAddresses: true })(url)).toEqual({
      status: 200,
      body: { ok: true },
      error: null,
    });
    expect(seen).toEqual([`c-1.preview.localhost:${port}/path?x=1`]);
    const refused = await httpProbe()(url);
    expect(refused).toMatchObject({ status: null, body: null });
    expect(refused.error).toContain('resolves to a loopback, link-local or private address');
    expect(seen).toHaveLength(1);
  });

  it('refuses a name any of whose addresses is private, and connects to the address it checked', async () => {
    seen.length = 0;
    const asked: string[] = [];
    // A name that resolves to a public address and to the metadata service: refused outright.
    const mixed = httpProbe({
      resolve: async (name) => {
        asked.push(name);
        return [
          { address: '203.0.113.9', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ];
      },
    });
    expect((await mixed(`http://rebind.example:${port}/`)).error).toContain('private address');
    // Resolved once, and that answer is where the request goes (here: loopback, allowed), whatever a
    // second lookup would say.
    let answers = 0;
    const allowed = httpProbe({
      privateAddresses: true,
      resolve: async () => {
        answers += 1;
        return [{ address: answers === 1 ? '127.0.0.1' : '203.0.113.9', family: 4 }];
      },
    });
    expect((await allowed(`http://rebind.example:${port}/`)).status).toBe(200);
    expect(answers).toBe(1);
    expect(seen).toEqual([`rebind.example:${port}/`]);
    expect(asked).toEqual(['rebind.example']);
  });

  it('refuses a literal private address, and says when a name does not resolve', async () => {
    expect((await httpProbe()(`http://127.0.0.1:${port}/`)).error).toContain('private address');
    expect((await httpProbe()(`http://[::1]:${port}/`)).error).toContain('private address');
    const nowhere = httpProbe({
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    expect((await nowhere('http://no-such.example/')).error).toBe(
      'no-such.example does not resolve: ENOTFOUND',
    );
  });
});
