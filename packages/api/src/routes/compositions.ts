import { Compositions, ErrorCode, Forge } from '@svc/core';
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import type { QueryParam, Registry } from '../registry.ts';
import { nameQuery, pageQuery, readJson } from '../request.ts';
import { compositionId, pageParams } from './params.ts';

const tag = 'compositions';
const idempotencyHeader: QueryParam = {
  name: 'Idempotency-Key',
  description: 'Makes the create safe to retry: same key and body replay the first answer for 24 h.',
  schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x20-\\x7e]+$' },
};
const missing = [ErrorCode.NotFound];

export function compositionRoutes(registry: Registry, deps: Forge.ForgeDeps): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/compositions',
      operationId: 'createComposition',
      permission: 'composition:write',
      summary: 'Create a composition (asynchronous).',
      tag,
      body: Compositions.CreateCompositionBody,
      headers: [idempotencyHeader],
      responses: {
        202: {
          description: 'Accepted; Location points at the composition.',
          schema: Compositions.CompositionView,
        },
      },
      errors: [
        ErrorCode.MalformedJson,
        ErrorCode.InvalidIdempotencyKey,
        ErrorCode.IdempotencyInFlight,
        ErrorCode.PreviewRevisionChanged,
        ErrorCode.PayloadTooLarge,
        ErrorCode.UnsupportedMediaType,
        ErrorCode.ValidationFailed,
        ErrorCode.UnknownReference,
        ErrorCode.IdempotencyKeyReused,
      ],
    },
    async (c) => {
      const result = await Compositions.create(
        deps,
        c.get('identity'),
        await readJson(c),
        c.req.header('idempotency-key'),
      );
      c.header('location', `/v1/compositions/${result.body.id}`);
      if (result.replayed) c.header('idempotent-replayed', 'true');
      return c.json(result.body, result.status as 202);
    },
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/compositions',
      operationId: 'listCompositions',
      permission: 'composition:read',
      summary: 'List compositions not yet destroyed, newest first.',
      tag,
      query: [
        { name: 'project', description: 'Only this project.', schema: { type: 'string' } },
        ...pageParams,
      ],
      responses: { 200: { description: 'A page of compositions.', schema: Compositions.CompositionList } },
      errors: [ErrorCode.InvalidQuery],
    },
    async (c) =>
      c.json(
        await Compositions.list(deps, c.get('identity'), { project: nameQuery(c, 'project') }, pageQuery(c)),
      ),
  );

  registry.add(
    {
      method: 'post',
      path: '/v1/compositions/plan',
      operationId: 'planComposition',
      permission: 'composition:read',
      summary: 'Plan a create without doing it: read-only, reserves nothing.',
      tag,
      body: Compositions.CreateCompositionBody,
      responses: {
        200: { description: 'The plan; blockers are data, not errors.', schema: Compositions.PlanView },
      },
      errors: [
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.UnsupportedMediaType,
        ErrorCode.PayloadTooLarge,
      ],
    },
    async (c) => c.json(await Compositions.plan(deps, c.get('identity'), await readJson(c))),
  );

  const byId = (
    path: string,
    operationId: string,
    summary: string,
    schema: Parameters<Registry['add']>[0]['responses'][number]['schema'],
    read: (c: Context<AppEnv>, id: string) => Promise<unknown>,
  ) =>
    registry.add(
      {
        method: 'get',
        path,
        operationId,
        permission: 'composition:read',
        summary,
        tag,
        responses: { 200: { description: summary, schema } },
        errors: missing,
      },
      async (c) => c.json((await read(c, compositionId(c))) as object),
    );

  byId(
    '/v1/compositions/{id}',
    'getComposition',
    'Full desired and observed state.',
    Compositions.CompositionView,
    (c, id) => Compositions.get(deps, c.get('identity'), id),
  );
  byId(
    '/v1/compositions/{id}/status',
    'getCompositionStatus',
    'Phase and latest operation.',
    Compositions.CompositionStatusView,
    (c, id) => Compositions.getStatus(deps, c.get('identity'), id),
  );
  byId(
    '/v1/compositions/{id}/endpoints',
    'getCompositionEndpoints',
    'Preview URLs and routing readiness.',
    Compositions.CompositionEndpointsView,
    (c, id) => Compositions.getEndpoints(deps, c.get('identity'), id),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/compositions/{id}/events',
      operationId: 'listCompositionEvents',
      permission: 'composition:read',
      summary: 'Durable audit events, newest first.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of events.', schema: Compositions.EventList } },
      errors: [...missing, ErrorCode.InvalidQuery],
    },
    async (c) =>
      c.json(await Compositions.listEvents(deps, c.get('identity'), compositionId(c), pageQuery(c))),
  );

  registry.add(
    {
      method: 'patch',
      path: '/v1/compositions/{id}',
      operationId: 'updateComposition',
      permission: 'composition:write',
      summary: 'Roll out a new complete override set (asynchronous).',
      tag,
      body: Compositions.UpdateCompositionBody,
      responses: {
        202: { description: 'Accepted; the rollout follows.', schema: Compositions.CompositionView },
      },
      errors: [
        ...missing,
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.UnknownReference,
        ErrorCode.GenerationMismatch,
        ErrorCode.OperationInProgress,
        ErrorCode.CompositionNotUpdatable,
        ErrorCode.CompositionExpired,
        ErrorCode.ForgeOwned,
        ErrorCode.PreviewRevisionChanged,
        ErrorCode.UnsupportedMediaType,
        ErrorCode.PayloadTooLarge,
      ],
    },
    async (c) => {
      const result = await Compositions.update(deps, c.get('identity'), compositionId(c), await readJson(c));
      return c.json(result.body, 202);
    },
  );

  registry.add(
    {
      method: 'delete',
      path: '/v1/compositions/{id}',
      operationId: 'destroyComposition',
      permission: 'composition:write',
      summary:
        'Destroy (asynchronous); accepted in every phase, supersedes any operation in flight. A pull-request preview records a stop.',
      tag,
      responses: { 202: { description: 'Accepted; cleanup follows.', schema: Compositions.CompositionView } },
      errors: missing,
    },
    async (c) => {
      const identity = c.get('identity');
      const result = await Compositions.destroy(
        deps,
        { actor: { kind: 'user', subject: identity.subject }, grants: identity.grants },
        compositionId(c),
      );
      // A pull-request preview deleted by hand stays deleted: its automation records a stop.
      await Forge.stopForComposition(deps, result.body);
      return c.json(result.body, 202);
    },
  );
}
