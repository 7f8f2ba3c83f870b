/**
 * The fuzz suite (issue 12): generated bodies, headers, paths and query strings at every operation
 * of the served OpenAPI document — including operations added after this file was written. No
 * answer may be 500 or above, every refusal is problem+json with a documented status, and a refused
 * request writes nothing (table item count and job queue unchanged). `npm test` runs a bounded
 * campaign; `npm run fuzz` a longer one (`FUZZ_RUNS` per operation, `FUZZ_SEED` to replay).
 */
import { Compositions, Operations } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifestAs, image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { campaign, type Known, type Operation, operationsOf } from './support/fuzz.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 8);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const revision = 'a'.repeat(40);

let stack: Stack;
let http: HttpClient;
// Nothing may write but the requests themselves: no worker, and the schedules stopped below.
useTestStack({ worker: false }, (started) => {
  ({ stack, http } = started);
});

async function created(overrides: Record<string, unknown> = {}): Promise<string> {
  const { status, body } = await http.post('/v1/compositions', {
    project: 'demo',
    baseline: 'staging',
    name: 'fuzzed',
    overrides,
  });
  expect(status, JSON.stringify(body)).toBe(202);
  return body.id;
}

/** A composition as its rollout would leave it, written straight to the store (no worker runs here). */
async function readyComposition(): Promise<string> {
  const id = await created({ 'service-b': { image: image('service-b', '2.0.0') } });
  const record = (await stack.stores.compositions.get(id)) as Compositions.CompositionRecord;
  const accepted = await stack.stores.compositions.replace({
    composition: {
      ...record,
      phase: Compositions.Phase.Ready,
      observed_generation: record.generation,
      public_ready: true,
      active_operation: null,
      latest_operation: { ...record.latest_operation, status: Operations.OperationStatus.Succeeded },
      lock_version: record.lock_version + 1,
    },
    expected_lock_version: record.lock_version,
    events: [],
  });
  expect(accepted).toBe(true);
  return id;
}

let operations: Operation[];
let known: Known;
beforeAll(async () => {
  await stack.scheduler.stop();
  const pending = await created();
  const ready = await readyComposition();
  const destroying = await created();
  expect((await http.delete(`/v1/compositions/${destroying}`)).status).toBe(202);
  const bound = await http.put(`/v1/projects/demo/frontends/web/revisions/${revision}/binding`, {
    composition_id: ready,
  });
  expect(bound.status, JSON.stringify(bound.body)).toBeLessThan(300);
  // A second project, so policies and baselines can name what the first one holds.
  expect((await http.post('/v1/catalog/apply', demoManifestAs('other'))).status).toBe(200);
  const build = await http.post('/v1/projects/demo/builds', {
    component: 'service-b',
    repository: 'acme/shop',
    commit_sha: revision,
    ref: 'refs/heads/main',
    image: `registry.example.com/demo/service-b@sha256:${'b'.repeat(64)}`,
  });
  expect(build.status, JSON.stringify(build.body)).toBeLessThan(300);
  known = {
    id: [pending, ready, destroying],
    project: ['demo', 'other'],
    repository: ['demo-org%2Fservice-b', 'acme%2Fshop'],
    component: ['service-a', 'service-b', 'service-c', 'service-d'],
    frontend: ['web'],
    revision: [revision, 'main'],
  };
  const document = await http.get('/v1/openapi.json');
  operations = operationsOf(document.body);
});

describe('fuzzing every operation of the OpenAPI document', () => {
  it(`answers below 500, with a documented problem, and refusals write nothing (${runs} runs per operation)`, async () => {
    const figures = await campaign(stack, operations, { known, runs, seed });
    expect(Object.keys(figures.byOperation).sort()).toEqual(operations.map((o) => o.operationId).sort());
    for (const operation of operations) expect(figures.byOperation[operation.operationId]).toBe(runs);
  }, 600_000);
});
