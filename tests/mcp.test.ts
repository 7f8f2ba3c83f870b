/**
 * `svc mcp` driven by the MCP SDK's own client over stdio, against the running local stack (dev
 * mode): the tool list and its annotations, plan → create → wait → logs → diagnosis → destroy with
 * its confirmation, the wait's failed/timed-out/ended outcomes, writes refused by default, and a
 * retried create that makes one composition.
 */
import { Compositions } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { toJsonSchema } from '@valibot/to-json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../packages/cli/test/helpers.ts';
import { type Agent, stdioAgent } from './support/mcp.ts';

let stack: Stack;
let http: HttpClient;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
  http = started.http;
});

let readOnly: Agent;
let writer: Agent;
beforeAll(async () => {
  [readOnly, writer] = await Promise.all([
    stdioAgent(stack.apiUrl),
    stdioAgent(stack.apiUrl, { args: ['--allow-writes'] }),
  ]);
});
afterAll(async () => {
  await Promise.all([readOnly?.close(), writer?.close()]);
});

const firstImage = image('service-b', '2.0.0');
const createArgs = (name: string) => ({
  project: 'demo',
  baseline: 'staging',
  name,
  overrides: { 'service-b': { image: firstImage } },
  ttl: '1h',
});

const readTools = [
  'catalog_read',
  'source_resolve',
  'composition_plan',
  'composition_wait',
  'composition_get',
  'composition_list',
  'composition_endpoints',
  'composition_logs',
  'composition_events',
  'composition_diagnosis',
  'composition_verification',
  'pr_preview_read',
];

async function compositionsNamed(name: string) {
  const { body } = await http.get('/v1/compositions?limit=200');
  return (body.items as { id: string; name: string }[]).filter((item) => item.name === name);
}

interface PreviewSeen {
  id: string;
  pull_request: { number: number };
}

async function previewOfPullRequest(number: number): Promise<PreviewSeen> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { body } = await http.get('/v1/forge/previews?project=demo&limit=200');
    const found = (body.items as PreviewSeen[]).find((p) => p.pull_request.number === number);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no preview for pull request #${number}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('svc mcp over stdio', () => {
  it('offers only read tools by default, each annotated read-only', async () => {
    const { tools } = await readOnly.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...readTools].sort());
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(20);
    }
    expect(readOnly.client.getInstructions()).toMatch(/read-only/);
  });

  it('offers the write tools with --allow-writes, annotated as what they do', async () => {
    const { tools } = await writer.client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        ...readTools,
        'composition_create',
        'composition_wake',
        'composition_update',
        'composition_destroy',
      ].sort(),
    );
    for (const name of ['composition_create', 'composition_wake']) {
      expect(byName[name]?.annotations, name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
      });
    }
    for (const name of ['composition_update', 'composition_destroy']) {
      expect(byName[name]?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
  });

  it('generates input schemas from the API schemas', async () => {
    const { tools } = await readOnly.client.listTools();
    const planTool = tools.find((tool) => tool.name === 'composition_plan');
    const { $schema: _, ...expected } = toJsonSchema(Compositions.CreateCompositionBody, {
      target: 'draft-2020-12',
      typeMode: 'input',
      errorMode: 'ignore',
    }) as Record<string, unknown>;
    expect(planTool?.inputSchema).toEqual(expected);
    const logsTool = tools.find((tool) => tool.name === 'composition_logs');
    expect(logsTool?.inputSchema).toMatchObject({
      required: ['id', 'component'],
      properties: { tail_lines: { maximum: 1000 }, max_bytes: { maximum: 262144 } },
    });
  });

  it('refuses writes in the default mode and changes nothing', async () => {
    const answer = await readOnly.call('composition_create', createArgs('mcp-refused'));
    expect(answer.isError).toBe(true);
    expect(answer.structured.problem).toMatchObject({ code: 'writes_disabled' });
    expect(answer.text).toMatch(/--allow-writes/);
    const destroy = await readOnly.call('composition_destroy', { id: 'c-doesnotexist' });
    expect(destroy.structured.problem.code).toBe('writes_disabled');
    expect(await compositionsNamed('mcp-refused')).toEqual([]);
  });

  it('answers bad arguments as a tool error naming the field', async () => {
    const answer = await readOnly.call('composition_logs', {
      id: 'c-x',
      component: 'service-b',
      tail_lines: 5000,
    });
    expect(answer.isError).toBe(true);
    expect(answer.structured.problem).toMatchObject({
      code: 'invalid_arguments',
      errors: [expect.objectContaining({ path: '/tail_lines' })],
    });
    // Held to what every request body is held to: a reserved key is refused, not silently dropped.
    const reserved = await readOnly.call('composition_plan', {
      ...createArgs('mcp-reserved'),
      overrides: JSON.parse('{"__proto__": {"image": "x"}}'),
    });
    expect(reserved.structured.problem).toMatchObject({
      code: 'invalid_arguments',
      errors: [expect.objectContaining({ path: '/overrides/__proto__' })],
    });
    const unknown = await readOnly.call('composition_get', { id: 'c-doesnotexist' });
    expect(unknown.structured.problem).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('reads pull-request previews as the REST routes show them', async () => {
    const forge = stack.forge;
    if (!forge) throw new Error('the test stack runs the local forge');
    const { pullRequest } = await forge.open({
      repository: 'demo-org/service-b',
      head: 'mcp-read',
      labels: ['preview'],
    });
    const number = pullRequest?.number;
    const listed = await previewOfPullRequest(number as number);
    const list = await readOnly.call('pr_preview_read', { project: 'demo' });
    expect(list.isError).toBeFalsy();
    expect(list.structured.items.map((p: { id: string }) => p.id)).toContain(listed.id);
    expect(list.text).toContain(`demo-org/service-b#${number}`);

    const one = await readOnly.call('pr_preview_read', { id: listed.id });
    const rest = await http.get(`/v1/forge/previews/${listed.id}`);
    expect(one.structured).toMatchObject({
      id: listed.id,
      repository: 'demo-org/service-b',
      pull_request: rest.body.pull_request,
    });
    const missing = await readOnly.call('pr_preview_read', { id: 'pr-doesnotexist' });
    expect(missing.structured.problem).toMatchObject({ code: 'not_found', status: 404 });
    await forge.close({ repository: 'demo-org/service-b', number: number as number });
  });

  it('plan → create → wait → logs → diagnosis → destroy with a confirmation', async () => {
    const planned = await writer.call('composition_plan', createArgs('mcp-session'));
    expect(planned.isError, planned.text).toBe(false);
    expect(planned.structured).toMatchObject({
      blockers: [],
      images: { 'service-b': { image: firstImage } },
    });
    expect(planned.text).toMatch(/no blockers/);

    const created = await writer.call('composition_create', createArgs('mcp-session'));
    expect(created.isError, created.text).toBe(false);
    expect(created.structured).toMatchObject({ phase: 'created', owner: { kind: 'user', subject: 'admin' } });
    const id: string = created.structured.id;

    const waited = await writer.call('composition_wait', { id, timeout_seconds: 45 });
    expect(waited.structured).toMatchObject({ outcome: 'ready', status: { id, phase: 'ready' } });

    const logs = await writer.call('composition_logs', { id, component: 'service-b' });
    expect(logs.isError, logs.text).toBe(false);
    expect(logs.structured).toMatchObject({ component: 'service-b', source: 'override' });
    expect(logs.structured.streams.length).toBeGreaterThan(0);
    for (const stream of logs.structured.streams) {
      // Workload output arrives labelled as data, never as bare text.
      expect(Object.keys(stream.text)).toEqual(['untrusted_data']);
      expect(typeof stream.text.untrusted_data).toBe('string');
    }
    expect(logs.text).toMatch(/never instructions/);

    const diagnosis = await writer.call('composition_diagnosis', { id });
    expect(diagnosis.structured).toMatchObject({ composition_id: id, blockers: [] });

    const asked = await writer.call('composition_destroy', { id });
    expect(asked.isError, asked.text).toBe(false);
    expect(asked.structured).toMatchObject({
      confirmation_required: true,
      composition: { id, phase: 'ready', generation: 1 },
      effect: { action: 'destroy', reversible: false },
    });
    expect(asked.text).toMatch(/Nothing was done yet/);
    // Asking did nothing.
    expect((await http.get(`/v1/compositions/${id}`)).body.phase).toBe('ready');

    const token: string = asked.structured.confirmation;
    const middle = token.length - 10;
    const forged = await writer.call('composition_destroy', {
      id,
      confirmation: `${token.slice(0, middle)}${token[middle] === 'A' ? 'B' : 'A'}${token.slice(middle + 1)}`,
    });
    expect(forged.structured.problem).toMatchObject({ code: 'confirmation_invalid' });
    // Another process (session) cannot use this one's confirmation either.
    const elsewhere = await stdioAgent(stack.apiUrl, { args: ['--allow-writes'] });
    try {
      const other = await elsewhere.call('composition_destroy', {
        id,
        confirmation: asked.structured.confirmation,
      });
      expect(other.structured.problem).toMatchObject({ code: 'confirmation_invalid' });
    } finally {
      await elsewhere.close();
    }
    expect((await http.get(`/v1/compositions/${id}`)).body.phase).toBe('ready');

    const destroyed = await writer.call('composition_destroy', {
      id,
      confirmation: asked.structured.confirmation,
    });
    expect(destroyed.isError, destroyed.text).toBe(false);
    expect(destroyed.structured).toMatchObject({ id, phase: 'destroying' });
  });

  it('composition_wait says failed with its blockers, timed_out while rolling out, ended once destroyed', async () => {
    const create = async (name: string, tag: string) => {
      const { status, body } = await http.post('/v1/compositions', {
        ...createArgs(name),
        overrides: { 'service-b': { image: image('service-b', tag) } },
      });
      expect(status, JSON.stringify(body)).toBe(202);
      return body.id as string;
    };
    const [broken, slow] = await Promise.all([
      create('mcp-broken', '9.9.9-missing'),
      create('mcp-slow', '2.0.0-slow'),
    ]);

    const failed = await readOnly.call('composition_wait', { id: broken, timeout_seconds: 20 });
    expect(failed.structured).toMatchObject({
      outcome: 'failed',
      status: { id: broken, phase: 'failed' },
      blockers: [expect.objectContaining({ code: 'image_pull_failed', component: 'service-b' })],
    });
    expect(failed.text).toMatch(/failed with 1 recorded blocker;/);

    const pending = await readOnly.call('composition_wait', { id: slow, timeout_seconds: 1 });
    expect(pending.structured).toMatchObject({ outcome: 'timed_out', status: { id: slow }, blockers: [] });
    expect(pending.text).toMatch(/after 1 s; call composition_wait again/);

    expect((await http.delete(`/v1/compositions/${slow}`)).status).toBe(202);
    const ended = await readOnly.call('composition_wait', { id: slow, timeout_seconds: 5 });
    expect(ended.structured).toMatchObject({ outcome: 'ended', blockers: [] });
    expect(['destroying', 'destroyed']).toContain(ended.structured.status.phase);
  });

  it('confirms an update only at the generation it was shown at', async () => {
    const created = await writer.call('composition_create', createArgs('mcp-update'));
    const id: string = created.structured.id;
    expect((await writer.call('composition_wait', { id, timeout_seconds: 45 })).structured.outcome).toBe(
      'ready',
    );
    const update = {
      id,
      expected_generation: 1,
      overrides: { 'service-b': { image: image('service-b', '2.1.0') } },
    };
    const asked = await writer.call('composition_update', update);
    expect(asked.structured).toMatchObject({
      confirmation_required: true,
      effect: { generation: { from: 1, to: 2 }, components: { changed: ['service-b'] } },
    });
    // Other arguments are another action: this confirmation does not cover them.
    const other = await writer.call('composition_update', {
      ...update,
      overrides: {},
      confirmation: asked.structured.confirmation,
    });
    expect(other.structured.problem.code).toBe('confirmation_invalid');

    const done = await writer.call('composition_update', {
      ...update,
      confirmation: asked.structured.confirmation,
    });
    expect(done.isError, done.text).toBe(false);
    expect(done.structured).toMatchObject({ id, generation: 2 });
    const again = await writer.call('composition_update', {
      ...update,
      confirmation: asked.structured.confirmation,
    });
    expect(again.structured.problem).toMatchObject({ code: 'confirmation_stale' });
    const behind = await writer.call('composition_update', update);
    expect(behind.structured.problem).toMatchObject({ code: 'generation_mismatch' });
  });

  it('a retried create makes one composition; a deliberate repeat makes another', async () => {
    const [first, retry] = [
      await writer.call('composition_create', createArgs('mcp-retried')),
      await writer.call('composition_create', createArgs('mcp-retried')),
    ];
    expect(first.isError, first.text).toBe(false);
    expect(retry.structured.id).toBe(first.structured.id);
    expect(await compositionsNamed('mcp-retried')).toHaveLength(1);

    const repeat = await writer.call('composition_create', {
      ...createArgs('mcp-retried'),
      request_id: 'second',
    });
    expect(repeat.structured.id).not.toBe(first.structured.id);
    expect(await compositionsNamed('mcp-retried')).toHaveLength(2);
  });
});
