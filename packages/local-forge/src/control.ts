// The routes under /_control: not GitHub's, ours, for driving the simulator from scripts and tests.
// Bodies mirror the programmatic API's inputs; answers are JSON, errors problem+json.

import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import { ControlError } from './errors.ts';
import type { ForgeControl } from './forge-control.ts';
import { RateLimitKind } from './rate-limit.ts';

const sender = v.optional(v.pipe(v.string(), v.nonEmpty()));
const name = v.pipe(v.string(), v.nonEmpty());

const OpenBody = v.object({
  repository: name,
  head: name,
  base: v.optional(name),
  title: v.optional(v.string()),
  body: v.optional(v.string()),
  author: v.optional(name),
  draft: v.optional(v.boolean()),
  labels: v.optional(v.array(name)),
  fork: v.optional(name),
});
const SenderBody = v.object({ sender });
const PushBody = v.object({ sender, sha: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{40}$/))) });
const LabelBody = v.object({ sender, label: name });
const CloseBody = v.object({ sender, merged: v.optional(v.boolean()) });
const BaseBody = v.object({ sender, base: name });
const InstallBody = v.object({ sender, repository: name });
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const FaultsBody = v.object({
  webhookFailures: v.optional(count),
  rateLimit: v.optional(
    v.object({
      count,
      kind: v.picklist(Object.values(RateLimitKind)),
      retryAfterSeconds: v.optional(count),
    }),
  ),
  serverErrors: v.optional(
    v.object({ count, status: v.optional(v.pipe(count, v.minValue(500), v.maxValue(599))) }),
  ),
});

async function parse<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  const text = await c.req.text();
  let input: unknown = {};
  if (text.trim()) {
    try {
      input = JSON.parse(text);
    } catch {
      throw new ControlError(400, 'malformed_json', 'the request body is not valid JSON');
    }
  }
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const errors = result.issues.map((issue) => ({
    path: `/${(issue.path ?? []).map((item) => String(item.key)).join('/')}`,
    message: issue.message,
  }));
  throw new ControlError(
    422,
    'invalid_body',
    errors.map((e) => `${e.path}: ${e.message}`).join('; '),
    errors,
  );
}

function pullTarget(c: Context): { repository: string; number: number } {
  const number = Number(c.req.param('number'));
  if (!Number.isSafeInteger(number) || number <= 0) {
    throw new ControlError(400, 'invalid_number', 'the pull request number must be a positive integer', [
      { path: '/number', message: 'expected a positive integer' },
    ]);
  }
  return { repository: `${c.req.param('owner')}/${c.req.param('repo')}`, number };
}

/** Drops undefined members, since the programmatic API is typed with exactOptionalPropertyTypes. */
function defined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}

export function createControl(control: ForgeControl): Hono {
  const app = new Hono().basePath('/_control');
  app.onError((error) => {
    const problem =
      error instanceof ControlError
        ? error
        : new ControlError(500, 'internal_error', 'the forge failed; see its log');
    if (!(error instanceof ControlError))
      process.stderr.write(`local-forge: control failed: ${String(error)}\n`);
    return new Response(JSON.stringify(problem.body()), {
      status: problem.status,
      headers: { 'content-type': 'application/problem+json' },
    });
  });
  app.notFound(() => {
    throw new ControlError(404, 'not_found', 'no such control route; see packages/local-forge/README.md');
  });

  app.get('/state', (c) => c.json(control.state()));
  app.post('/pulls', async (c) => c.json(await control.open(defined(await parse(c, OpenBody))), 201));
  const pull = '/pulls/:owner/:repo/:number';
  app.post(`${pull}/push`, async (c) =>
    c.json(await control.push({ ...pullTarget(c), ...defined(await parse(c, PushBody)) })),
  );
  app.post(`${pull}/labels`, async (c) =>
    c.json(await control.label({ ...pullTarget(c), ...defined(await parse(c, LabelBody)) })),
  );
  app.delete(`${pull}/labels/:label`, async (c) =>
    c.json(await control.unlabel({ ...pullTarget(c), label: c.req.param('label') })),
  );
  app.post(`${pull}/close`, async (c) =>
    c.json(await control.close({ ...pullTarget(c), ...defined(await parse(c, CloseBody)) })),
  );
  app.post(`${pull}/reopen`, async (c) =>
    c.json(await control.reopen({ ...pullTarget(c), ...defined(await parse(c, SenderBody)) })),
  );
  app.post(`${pull}/base`, async (c) =>
    c.json(await control.changeBase({ ...pullTarget(c), ...defined(await parse(c, BaseBody)) })),
  );
  app.post('/installations', async (c) =>
    c.json(await control.install(defined(await parse(c, InstallBody)))),
  );
  app.delete('/installations/:owner', async (c) =>
    c.json(await control.uninstall({ target: c.req.param('owner') })),
  );
  app.delete('/installations/:owner/:repo', async (c) =>
    c.json(await control.uninstall({ target: `${c.req.param('owner')}/${c.req.param('repo')}` })),
  );
  for (const verb of ['suspend', 'unsuspend'] as const) {
    app.post(`/installations/:owner/${verb}`, async (c) =>
      c.json(await control[verb]({ account: c.req.param('owner'), ...defined(await parse(c, SenderBody)) })),
    );
  }
  app.get('/faults', (c) => c.json(control.faults()));
  app.post('/faults', async (c) => {
    const body = await parse(c, FaultsBody);
    return c.json(
      control.setFaults({
        ...(body.webhookFailures !== undefined ? { webhookFailures: body.webhookFailures } : {}),
        ...(body.rateLimit ? { rateLimit: defined(body.rateLimit) } : {}),
        ...(body.serverErrors ? { serverErrors: defined(body.serverErrors) } : {}),
      }),
    );
  });
  return app;
}
