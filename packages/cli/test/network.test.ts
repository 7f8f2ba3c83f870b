/** Network failures are one line naming the URL and SVC_API_URL, exit 1 — never a stack trace. */
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, recordingServer, svc } from './helpers.ts';

beforeAll(() => ensureBuilt());

function expectOneLine(stderr: string, url: string) {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  const problem = JSON.parse(lines[0] as string);
  expect(problem.detail).toContain(url);
  expect(problem.detail).toContain('SVC_API_URL');
  return problem;
}

describe('network failures', () => {
  it('connection refused', async () => {
    const url = 'http://127.0.0.1:9';
    const result = await svc(['composition', 'list'], { apiUrl: url });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(expectOneLine(result.stderr, url)).toMatchObject({ code: 'api_unreachable' });
    expect(result.problem().detail).toContain('connection refused');
  });

  it('host not found', async () => {
    const url = 'http://svc-api.invalid:8081';
    const result = await svc(['composition', 'get', 'c-x'], { apiUrl: url, env: { SVC_HTTP_TIMEOUT: '5s' } });
    expect(result.code).toBe(1);
    const problem = expectOneLine(result.stderr, url);
    expect(['api_unreachable', 'api_timeout']).toContain(problem.code);
  });

  describe('an API that accepts the connection and never answers', () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    let url: string;
    beforeAll(async () => {
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    });
    afterAll(() => {
      for (const socket of sockets) socket.destroy();
      silent.close();
    });

    it('times out after SVC_HTTP_TIMEOUT', async () => {
      const result = await svc(['composition', 'list'], { apiUrl: url, env: { SVC_HTTP_TIMEOUT: '1s' } });
      expect(result.code).toBe(1);
      const problem = expectOneLine(result.stderr, url);
      expect(problem).toMatchObject({ code: 'api_timeout' });
      expect(problem.detail).toContain('within 1s');
    });
  });

  it('something that is not the svc API (HTML error page) is named as such', async () => {
    const api = await recordingServer(() => ({
      status: 502,
      type: 'text/html',
      body: '<h1>Bad gateway</h1>',
    }));
    try {
      const result = await svc(['composition', 'list'], { apiUrl: api.url });
      expect(result.code).toBe(1);
      expect(result.problem()).toMatchObject({ code: 'unexpected_response', status: 502 });
      expect(result.problem().detail).toContain('SVC_API_URL');
    } finally {
      await api.close();
    }
  });
});
