import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitHubForge } from './forge.ts';
import { lazyForge } from './lazy.ts';

/** A forge that refuses every app JWT, as GitHub does a revoked key. */
const refusing = createServer((_request, response) => {
  response.writeHead(401, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ message: 'A JSON web token could not be decoded' }));
});
let apiUrl: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => refusing.close(() => resolve())));

const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;

describe('lazyForge', () => {
  it('has observed and cached nothing before its first call, then answers as the eager port does', async () => {
    const settings = { appId: '1', privateKey, apiUrl, writeIntervalMs: 0 };
    const lazy = lazyForge(settings);
    expect(lazy.budgets()).toEqual([]);
    expect(() => lazy.forgetRepositories(['demo-org/service-b'])).not.toThrow();
    const answer = await lazy.checkApp();
    expect(answer).toEqual({ app_id: '1', private_key: 'invalid', error: 'the forge refused the app JWT' });
    expect(answer).toEqual(await gitHubForge(settings).checkApp());
  });
});
