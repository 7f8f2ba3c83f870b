/**
 * The draft, plan and diagnosis routes are newer than release 0.8.0 (interface spec, part 9). A
 * server of that release answers them the way it answers any route it lacks: 404 "No route", or
 * 405 where the path matches another route (`/v1/compositions/plan` matches `/v1/compositions/{id}`).
 * The stand-in answers as such a build does; a current server cannot be made to.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type Recorded, recordingServer, svc } from './helpers.ts';

const problem = (status: number, code: string, detail: string) => ({
  status,
  body: { type: `/docs/errors.md#${code}`, title: code, status, detail, code, errors: [], instance: 'r-1' },
});

/** Release 0.8.0: `/version`, the composition routes, and nothing newer. */
function releaseEightServer(request: Recorded) {
  const path = new URL(request.url, 'http://x').pathname;
  if (path === '/version') {
    return {
      status: 200,
      body: { service: 'preview-composition-service', release: '0.8.0', commit: 'abc1234' },
    };
  }
  if (/^\/v1\/compositions\/[^/]+$/.test(path) && request.method === 'POST') {
    return problem(405, 'method_not_allowed', `POST is not allowed on ${path}.`);
  }
  if (path === '/v1/compositions/c-gone') return problem(404, 'not_found', 'composition "c-gone" not found');
  return problem(404, 'not_found', `No route for ${request.method} ${path}.`);
}

let api: Awaited<ReturnType<typeof recordingServer>>;
let planFile: string;
beforeAll(async () => {
  await ensureBuilt();
  api = await recordingServer(releaseEightServer);
  planFile = join(tmpdir(), `plan-${process.pid}.json`);
  writeFileSync(planFile, JSON.stringify({ project: 'demo', baseline: 'staging', name: 'x', overrides: {} }));
});
afterAll(() => api.close());

describe('a command newer than the server', () => {
  it.each([
    [['composition', 'plan', '--file'], 'POST /v1/compositions/plan'],
    [['composition', 'diagnosis', 'c-abc'], 'GET /v1/compositions/c-abc/diagnosis'],
    [['catalog', 'draft', 'get', 'demo'], 'GET /v1/projects/demo/onboarding-draft'],
  ])('svc %s says which release the server runs and that it needs a newer one', async (args, route) => {
    const command = args.at(-1) === '--file' ? [...args, planFile] : args;
    const result = await svc(command, { apiUrl: api.url });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({
      code: 'server_too_old',
      status: null,
      detail: `the server runs release 0.8.0 (commit abc1234) and has no route for ${route}: this command needs a server release newer than 0.8.0. Upgrade the server, or use the CLI of the server's release.`,
      errors: [{ path: route, message: 'no such route on this server' }],
    });
  });

  it('still answers a missing resource as the 404 it is', async () => {
    const result = await svc(['composition', 'get', 'c-gone'], { apiUrl: api.url });
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ code: 'not_found', status: 404 });
  });
});
