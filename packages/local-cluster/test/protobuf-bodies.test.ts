// Protobuf request bodies over HTTP, with the bytes kubectl 1.32 sent (see the decoder's fixture):
// creates and replaces work, broken bodies are a 400 Status and write nothing.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestCluster, type TestCluster } from './helpers.ts';

const captured = (
  JSON.parse(
    readFileSync(new URL('../src/api/protobuf/kubectl-1.32-bodies.json', import.meta.url), 'utf8'),
  ) as { bodies: { command: string; protobuf: string }[] }
).bodies;

function body(command: string): Buffer {
  const found = captured.find((b) => b.command.startsWith(command));
  if (!found) throw new Error(`no captured body for ${command}`);
  return Buffer.from(found.protobuf, 'base64');
}

let t: TestCluster;

async function send(method: string, path: string, bytes: Uint8Array) {
  const res = await fetch(`${t.cluster.url}${path}`, {
    method,
    headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    body: bytes,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  t = await startTestCluster();
  expect((await send('POST', '/api/v1/namespaces', body('kubectl create namespace fixture'))).status).toBe(
    201,
  );
});
afterAll(() => t.stop());

describe('protobuf bodies', () => {
  it('answers 400 for a truncated body and writes nothing', async () => {
    const whole = body('kubectl create deployment web');
    for (const length of [4, 10, 40, whole.length - 5]) {
      const r = await send('POST', '/apis/apps/v1/namespaces/fixture/deployments', whole.subarray(0, length));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    }
    expect((await api(t.cluster, 'GET', '/apis/apps/v1/namespaces/fixture/deployments/web')).status).toBe(
      404,
    );
    const r = await send('POST', '/apis/apps/v1/namespaces/fixture/deployments', whole);
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ metadata: { name: 'web', namespace: 'fixture' }, spec: { replicas: 2 } });
  });

  it('answers 400 for garbage and for a JSON body labelled protobuf', async () => {
    const garbage = Buffer.concat([
      Buffer.from('k8s\0', 'latin1'),
      Buffer.from([0xff, 0xff, 0xff, 0x0f, 0x08]),
    ]);
    expect((await send('POST', '/api/v1/namespaces/fixture/configmaps', garbage)).status).toBe(400);
    const json = Buffer.from('{"metadata":{"name":"x"}}');
    const r = await send('POST', '/api/v1/namespaces/fixture/configmaps', json);
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('k8s\\0');
  });

  it('replaces an object with a protobuf PUT, but reads status and delete options only as JSON', async () => {
    const settings = body('kubectl create configmap settings');
    expect((await send('POST', '/api/v1/namespaces/fixture/configmaps', settings)).status).toBe(201);
    const replaced = await send('PUT', '/api/v1/namespaces/fixture/configmaps/settings', settings);
    expect(replaced.status).toBe(200);
    expect(replaced.json.data).toEqual({ greeting: 'hello', mode: 'fast' });

    const service = body('kubectl create service clusterip');
    expect((await send('POST', '/api/v1/namespaces/fixture/services', service)).status).toBe(201);
    const status = await send('PUT', '/api/v1/namespaces/fixture/services/web/status', service);
    expect(status.status).toBe(415);
    expect(status.json.reason).toBe('UnsupportedMediaType');
    const deleted = await send('DELETE', '/api/v1/namespaces/fixture/configmaps/settings', settings);
    expect(deleted.status).toBe(415);
    expect((await api(t.cluster, 'GET', '/api/v1/namespaces/fixture/configmaps/settings')).status).toBe(200);
  });
});
