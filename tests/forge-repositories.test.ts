/**
 * A repository belongs to one project: the first preview policy saved for it holds it (under a race
 * too), another project's save is refused naming the holder, and deleting the holder's policy gives
 * it back. A policy another project saved before repositories were held acts on nothing: no second
 * check run on the holder's pull requests, and no processing error of theirs to read.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifestAs } from '@svc/local/demo';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import type { LocalForge } from '@svc/local-forge';
import { describe, expect, it } from 'vitest';

let stack: Stack;
let forge: LocalForge;
let admin: HttpClient;
let intruder: HttpClient;
let intruderViewer: HttpClient;
let demoViewer: HttpClient;

useTestStack({ authMode: Auth.AuthMode.Token, forge: { writeIntervalMs: 0 } }, async (started) => {
  stack = started.stack;
  forge = stack.forge as LocalForge;
  const as = async (name: string, role: string, project: string) =>
    httpClient(stack.apiUrl, {
      authorization: `Bearer ${await started.token(name, [{ role, project, repository: null } as Auth.Grant])}`,
    });
  admin = httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token('admin', 'admin')}` });
  expect((await admin.post('/v1/catalog/apply', demoManifestAs('intruder'))).status).toBe(200);
  intruder = await as('intruder-maintainer', 'maintainer', 'intruder');
  intruderViewer = await as('intruder-viewer', 'viewer', 'intruder');
  demoViewer = await as('demo-viewer', 'viewer', 'demo');
});

const policyPath = (project: string, repository: string) =>
  `/v1/projects/${project}/repositories/${encodeURIComponent(repository)}/preview-policy`;
const policy = { enabled: true, trigger_label: 'preview', baseline: 'staging', components: ['service-b'] };

describe('a repository belongs to one project', () => {
  it('refuses another project’s policy for a repository a project holds, naming the holder', async () => {
    const refused = await intruder.put(policyPath('intruder', 'demo-org/service-b'), policy);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('repository_taken');
    expect(refused.body.detail).toContain('belongs to project "demo"');
    expect((await admin.get(policyPath('intruder', 'demo-org/service-b'))).status).toBe(404);
  });

  it('goes to exactly one of two projects saving a policy for it at once', async () => {
    for (let round = 0; round < 4; round++) {
      const repository = `demo-org/contested-${round}`;
      await forge.install({ repository });
      const answers = await Promise.all(
        ['demo', 'intruder'].map((project) => admin.put(policyPath(project, repository), policy)),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      const winner = answers[0]?.status === 201 ? 'demo' : 'intruder';
      const loser = winner === 'demo' ? 'intruder' : 'demo';
      expect(answers.find((a) => a.status === 409)?.body.detail).toContain(`belongs to project "${winner}"`);
      expect((await admin.get(policyPath(winner, repository))).status).toBe(200);
      expect((await admin.get(policyPath(loser, repository))).status).toBe(404);
    }
  });

  it('moves to another project once its holder deletes its policy', async () => {
    const repository = 'demo-org/moving';
    await forge.install({ repository });
    expect((await admin.put(policyPath('demo', repository), policy)).status).toBe(201);
    expect((await intruder.put(policyPath('intruder', repository), policy)).status).toBe(409);
    // Deleting is the holder's to do: the intruder's maintainer cannot see demo's policy.
    expect((await intruder.delete(policyPath('demo', repository))).status).toBe(404);
    expect((await admin.delete(policyPath('demo', repository))).status).toBe(204);
    expect((await admin.delete(policyPath('demo', repository))).status).toBe(404);
    expect((await intruder.put(policyPath('intruder', repository), policy)).status).toBe(201);
    expect((await admin.put(policyPath('demo', repository), policy)).body.code).toBe('repository_taken');
    const audit = (await admin.get('/v1/audit-events?project=demo&limit=50')).body.items;
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'preview_policy.deleted', target: repository, project: 'demo' }),
    );
  });

  it('acts only through its holder: an older policy of another project posts nothing and reads no processing error', async () => {
    // A policy intruder saved before repositories were held, as it stands in the table.
    const table = { TableName: stack.resources.tableName };
    const demoKey = { pk: 'POLICY#demo#demo-org/service-b', sk: 'POLICY' };
    const { Item: demoItem } = await stack.clients.documents.send(new GetCommand({ ...table, Key: demoKey }));
    expect(demoItem).toBeDefined();
    await stack.clients.documents.send(
      new PutCommand({
        ...table,
        Item: {
          ...demoItem,
          pk: 'POLICY#intruder#demo-org/service-b',
          project: 'intruder',
          gsi1sk: 'intruder#demo-org/service-b',
          gsi2sk: 'intruder',
        },
      }),
    );
    const check = await admin.post('/v1/installation/check', {});
    const claims = check.body.checks.find((c: { id: string }) => c.id === 'repository-claims');
    expect(claims).toMatchObject({ status: 'failed' });
    expect(claims.message).toContain(
      'repository demo-org/service-b has preview policies in projects "demo", "intruder"; it belongs to "demo"',
    );

    const { pullRequest } = await forge.open({
      repository: 'demo-org/service-b',
      head: 'one-project-only',
      labels: ['preview'],
    });
    const number = pullRequest?.number as number;
    // Demo's preview gets ready and its check run completes (feedback is written after the state).
    const headRuns = () => {
      const pr = forge
        .state()
        .pullRequests.find((p) => p.repository === 'demo-org/service-b' && p.number === number);
      return pr?.checkRuns.filter((r) => r.name === 'preview' && r.headSha === pr.headSha) ?? [];
    };
    const deadline = Date.now() + 60_000;
    while (!headRuns().some((r) => r.status === 'completed') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const demoPreviews = (await admin.get('/v1/forge/previews?project=demo&limit=200')).body.items;
    expect(
      demoPreviews.find((p: { pull_request: { number: number } }) => p.pull_request.number === number),
    ).toMatchObject({
      state: 'ready',
    });
    const intruderPreviews = (await admin.get('/v1/forge/previews?project=intruder&limit=200')).body.items;
    expect(
      intruderPreviews.filter((p: { pull_request: { number: number } }) => p.pull_request.number === number),
    ).toEqual([]);
    // One check run on the head commit, demo's, finished: no second project's run waits beside it.
    expect(headRuns().map((r) => [r.status, r.conclusion])).toEqual([['completed', 'success']]);

    const at = new Date().toISOString();
    await stack.stores.forgeStore.putDelivery({
      id: 'failed-delivery-of-service-b',
      event: 'pull_request',
      action: 'labeled',
      repository: 'demo-org/service-b',
      number,
      repositories: [],
      installation: null,
      account: 'demo-org',
      state: 'failed',
      received_at: at,
      due_at: null,
      finished_at: at,
      attempts: 5,
      error: `pull request #${number}: a detail of demo's`,
      outcome: [],
    });
    const seen = async (client: HttpClient) =>
      (await client.get('/v1/forge/deliveries?repository=demo-org/service-b&limit=200')).body.items.find(
        (d: { id: string }) => d.id === 'failed-delivery-of-service-b',
      );
    expect((await seen(demoViewer))?.error).toBe(`pull request #${number}: a detail of demo's`);
    expect(await seen(intruderViewer)).toMatchObject({ state: 'failed', error: null });
  });
});
