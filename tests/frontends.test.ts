/** Frontend bindings over HTTP: bind, resolve (waiting for readiness), publish, and checks that feed verification. */
import type { Stack } from '@svc/local';
import { baselineObjects, demoManifest, image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let http: HttpClient;
useTestStack({}, (started) => {
  ({ stack, http } = started);
});

const revision = 'f'.repeat(40);
const web = (rev = revision, project = 'demo') => `/v1/projects/${project}/frontends/web/revisions/${rev}`;
const site = 'https://web-ffff.pages.example.com/';

describe('frontend bindings', () => {
  let id: string;

  it('binds a frontend revision to a composition of the project (201), again changes nothing (200)', async () => {
    id = (await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } })).id;
    const bound = await http.put(`${web()}/binding`, { composition_id: id });
    expect(bound.status, JSON.stringify(bound.body)).toBe(201);
    expect(bound.body).toEqual({
      project: 'demo',
      frontend: 'web',
      revision,
      composition_id: id,
      version: 1,
      published: null,
      bound_by: 'admin',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      expires_at: expect.any(String),
    });
    const again = await http.put(`${web()}/binding`, { composition_id: id });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(bound.body);
  });

  it('refuses an unknown composition, one of another project, and paths that cannot exist', async () => {
    const unknown = await http.put(`${web()}/binding`, { composition_id: 'c-nothere' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: 'unknown_reference', errors: [{ path: '/composition_id' }] });
    const manifest = demoManifest();
    const project = manifest.projects[0];
    if (!project) throw new Error('no project');
    project.name = 'other';
    for (const baseline of project.baselines) baseline.namespace = 'other';
    expect((await http.post('/v1/catalog/apply', manifest)).status).toBe(200);
    const foreign = await createComposition(http, {}, { project: 'other' });
    const elsewhere = await http.put(`${web()}/binding`, { composition_id: foreign.id });
    // Another project's composition gets the very answer of one that does not exist.
    const unknownAgain = await http.put(`${web()}/binding`, { composition_id: 'c-nothere' });
    expect(elsewhere.status).toBe(422);
    expect({ ...elsewhere.body, detail: '', instance: '' }).toEqual({
      ...unknownAgain.body,
      detail: '',
      instance: '',
    });
    expect(elsewhere.body.detail).not.toContain('other');
    expect((await http.put(`${web(revision, 'nope')}/binding`, { composition_id: id })).status).toBe(404);
    expect((await http.put(`${web('abc123')}/binding`, { composition_id: id })).status).toBe(404);
    expect((await http.put(`${web()}/binding`, { composition: id })).status).toBe(422);
    expect((await http.get(`${web('e'.repeat(40))}/binding`)).status).toBe(404);
  });

  it('resolve waits for the composition to be ready and answers its preview URL', async () => {
    const { status, body } = await http.get(`${web()}/binding?wait_seconds=20`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      outcome: 'ready',
      binding: { composition_id: id, version: 1 },
      composition: { id, phase: 'ready', generation: 1, observed_generation: 1, ready: true },
    });
    expect(body.composition.url).toBe(`http://${id}.preview.localhost:${new URL(stack.gatewayUrl).port}/`);
    expect((await http.get(`${web()}/binding?wait_seconds=61`)).status).toBe(400);
  });

  it('publish records the URL at the next version when expected_version is current; a stale one is 409', async () => {
    const published = await http.post(`${web()}/publish`, { expected_version: 1, url: site });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body).toMatchObject({
      version: 2,
      published: { url: site, published_by: 'admin', published_at: expect.any(String) },
    });
    const stale = await http.post(`${web()}/publish`, { expected_version: 1, url: site });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      code: 'version_mismatch',
      errors: [{ path: '/expected_version', message: 'current version is 2' }],
    });
    const secret = await http.post(`${web()}/publish`, {
      expected_version: 2,
      url: 'https://u:p@x.example.com/',
    });
    expect(secret.status).toBe(422);
    expect(
      (await http.post(`${web('e'.repeat(40))}/publish`, { expected_version: 1, url: site })).status,
    ).toBe(404);
  });

  it('a check joins the composition verification list as kind frontend, fresh; a stale version is 409', async () => {
    const recorded = await http.post(`${web()}/checks`, {
      expected_version: 2,
      composition_generation: 1,
      status: 'passed',
      message: 'login page renders against the preview API',
    });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201);
    expect(recorded.body).toMatchObject({
      composition_id: id,
      kind: 'frontend',
      generation: 1,
      status: 'passed',
      target: site,
      frontend: { name: 'web', revision, version: 2 },
      freshness: 'fresh',
      stale_reasons: [],
    });
    const { body } = await http.get(`/v1/compositions/${id}/verification`);
    expect(body.items.map((c: { kind: string }) => c.kind)).toEqual(['frontend', 'routing']);
    expect(body.items[0]).toEqual(recorded.body);
    expect(body.items[1]).toMatchObject({ frontend: null, freshness: 'fresh' });

    const stale = await http.post(`${web()}/checks`, {
      expected_version: 1,
      composition_generation: 1,
      status: 'failed',
      message: 'x',
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('version_mismatch');
    const future = await http.post(`${web()}/checks`, {
      expected_version: 2,
      composition_generation: 5,
      status: 'passed',
      message: 'x',
    });
    expect(future.status).toBe(422);
    expect(future.body.errors[0].path).toBe('/composition_generation');
    const badStatus = await http.post(`${web()}/checks`, {
      expected_version: 2,
      composition_generation: 1,
      status: 'unknown',
      message: 'x',
    });
    expect(badStatus.status).toBe(422);
  });

  it('a check of a generation other than the observed one reads stale with that reason', async () => {
    const updated = await http.patch(`/v1/compositions/${id}`, {
      expected_generation: 1,
      overrides: { 'service-b': { image: image('service-b', '2.1.0') } },
    });
    expect(updated.status).toBe(202);
    await waitForPhase(http, id, ['ready']);
    const { body } = await http.get(`/v1/compositions/${id}/verification`);
    const frontend = body.items.find((c: { kind: string }) => c.kind === 'frontend');
    expect(frontend.freshness).toBe('stale');
    expect(frontend.stale_reasons[0]).toBe(
      'generation: the check ran against generation 1, the observed generation is 2',
    );
    const current = await http.post(`${web()}/checks`, {
      expected_version: 2,
      composition_generation: 2,
      status: 'passed',
      message: 'generation 2 looks right',
    });
    expect(current.body).toMatchObject({ generation: 2, freshness: 'fresh' });
    const diagnosis = await http.get(`/v1/compositions/${id}/diagnosis`);
    expect(diagnosis.body).toMatchObject({ state: 'healthy', evidence_id: current.body.id });
  });

  it('resolve says failed for a failed composition and ended for one being destroyed', async () => {
    const other = 'a'.repeat(40);
    const failing = await createComposition(http, {
      'service-d': { image: image('service-d', '9.9.9-missing') },
    });
    expect((await http.put(`${web(other)}/binding`, { composition_id: failing.id })).status).toBe(201);
    const failed = await http.get(`${web(other)}/binding?wait_seconds=20`);
    expect(failed.body).toMatchObject({ outcome: 'failed', composition: { phase: 'failed', ready: false } });
    expect(failed.body.message).toContain('9.9.9-missing');

    const doomed = await createComposition(http, {});
    const third = 'b'.repeat(40);
    await http.put(`${web(third)}/binding`, { composition_id: doomed.id });
    expect((await http.delete(`/v1/compositions/${doomed.id}`)).status).toBe(202);
    const ended = await http.get(`${web(third)}/binding?wait_seconds=5`);
    expect(ended.body).toMatchObject({ outcome: 'ended', composition: { phase: 'destroying' } });
    const late = await http.put(`${web('c'.repeat(40))}/binding`, { composition_id: doomed.id });
    expect(late.status).toBe(422);
    expect(late.body.errors[0].message).toContain('bind a live one');
  });

  it('resolve waits no longer than asked: a slow composition is still pending', async () => {
    const slow = await createComposition(http, { 'service-c': { image: image('service-c', '2.0.0-slow') } });
    const rev = 'd'.repeat(40);
    await http.put(`${web(rev)}/binding`, { composition_id: slow.id });
    const started = Date.now();
    const { body } = await http.get(`${web(rev)}/binding?wait_seconds=1`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(body).toMatchObject({ outcome: 'pending', composition: { id: slow.id, ready: false } });
    await http.delete(`/v1/compositions/${slow.id}`);
  });

  it('a baseline change makes a frontend check stale without a new generation; so does rebinding', async () => {
    const manifest = demoManifest();
    const project = manifest.projects[0];
    const baseline = project?.baselines[0];
    if (!baseline?.components['service-d']) throw new Error('no service-d');
    baseline.components['service-d'].image = image('service-d', '1.0.1');
    const deployment = baselineObjects(manifest).find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'service-d',
    );
    if (!deployment) throw new Error('no deployment');
    await stack.cluster.apply(deployment);
    const { body } = await http.get(`/v1/compositions/${id}/verification`);
    expect(body.items[0]).toMatchObject({
      kind: 'frontend',
      generation: 2,
      freshness: 'stale',
      stale_reasons: ['image:service-d changed'],
    });

    const next = await createComposition(http, {});
    const rebound = await http.put(`${web()}/binding`, { composition_id: next.id });
    expect(rebound.body).toMatchObject({ composition_id: next.id, version: 3, published: null });
    const after = await http.get(`/v1/compositions/${id}/verification`);
    expect(after.body.items[0].stale_reasons[0]).toBe(`frontend:web is now bound to ${next.id}`);
  });
});
