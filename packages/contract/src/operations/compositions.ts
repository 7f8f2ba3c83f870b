/** Compositions: create, plan, read, update, wake and destroy (spec 4.1). */
import { Compositions, ErrorCode } from '@svc/core';
import type * as v from 'valibot';
import { idempotencyKey } from '../headers.ts';
import type { ApiOperation } from '../operation.ts';
import { compositionParam } from '../params.ts';
import { projectFilter } from '../query.ts';
import { list, read, write } from '../shapes.ts';

const tag = 'compositions';
const byId = { id: compositionParam };

/** One view of a composition by its id. */
const readById = <J extends v.GenericSchema>(path: string, summary: string, json: J) =>
  read({ path, permission: 'composition:read', summary, tag, params: byId }, { description: summary, json });

export const compositionOperations = {
  createComposition: {
    method: 'post',
    path: '/v1/compositions',
    permission: 'composition:write',
    summary: 'Create a composition (asynchronous).',
    tag,
    body: Compositions.CreateCompositionBody,
    headers: { 'Idempotency-Key': idempotencyKey },
    responses: {
      202: {
        description: 'Accepted; Location points at the composition.',
        json: Compositions.CompositionView,
      },
    },
    errors: [
      ErrorCode.IdempotencyInFlight,
      ErrorCode.PreviewRevisionChanged,
      ErrorCode.UnknownReference,
      ErrorCode.IdempotencyKeyReused,
      ErrorCode.NamespaceTaken,
    ],
  },

  listCompositions: list(
    {
      path: '/v1/compositions',
      permission: 'composition:read',
      summary: 'List compositions not yet destroyed, newest first.',
      tag,
    },
    { description: 'A page of compositions.', json: Compositions.CompositionList },
    { project: projectFilter },
  ),

  planComposition: write(
    'post',
    {
      path: '/v1/compositions/plan',
      permission: 'composition:read',
      summary: 'Plan a create without doing it: read-only, reserves nothing.',
      tag,
      body: Compositions.CreateCompositionBody,
    },
    200,
    { description: 'The plan; blockers are data, not errors.', json: Compositions.PlanView },
  ),

  getComposition: readById(
    '/v1/compositions/{id}',
    'Full desired and observed state.',
    Compositions.CompositionView,
  ),
  getCompositionStatus: readById(
    '/v1/compositions/{id}/status',
    'Phase and latest operation.',
    Compositions.CompositionStatusView,
  ),
  getCompositionEndpoints: readById(
    '/v1/compositions/{id}/endpoints',
    'Preview URLs and routing readiness.',
    Compositions.CompositionEndpointsView,
  ),

  listCompositionEvents: list(
    {
      path: '/v1/compositions/{id}/events',
      permission: 'composition:read',
      summary: 'Durable audit events, newest first.',
      tag,
      params: byId,
    },
    { description: 'A page of events.', json: Compositions.EventList },
  ),

  updateComposition: write(
    'patch',
    {
      path: '/v1/compositions/{id}',
      permission: 'composition:write',
      summary: 'Roll out a new complete override set (asynchronous).',
      tag,
      params: byId,
      body: Compositions.UpdateCompositionBody,
      errors: [
        ErrorCode.UnknownReference,
        ErrorCode.GenerationMismatch,
        ErrorCode.OperationInProgress,
        ErrorCode.CompositionNotUpdatable,
        ErrorCode.CompositionExpired,
        ErrorCode.ForgeOwned,
        ErrorCode.PreviewRevisionChanged,
      ],
    },
    202,
    { description: 'Accepted; the rollout follows.', json: Compositions.CompositionView },
  ),

  wakeComposition: {
    method: 'post',
    path: '/v1/compositions/{id}/wake',
    permission: 'composition:write',
    summary:
      'Wake a sleeping composition: its forks come up without a request and stay up for its sleep.after (docs/sleep.md).',
    tag,
    params: byId,
    responses: {
      200: { description: 'Awake or waking already; nothing changed.', json: Compositions.CompositionView },
      202: { description: 'Accepted; the forks are waking.', json: Compositions.CompositionView },
    },
    errors: [
      ErrorCode.SleepNotEnabled,
      ErrorCode.OperationInProgress,
      ErrorCode.CompositionNotUpdatable,
      ErrorCode.CompositionExpired,
      ErrorCode.ConcurrentChange,
    ],
  },

  destroyComposition: write(
    'delete',
    {
      path: '/v1/compositions/{id}',
      permission: 'composition:write',
      summary:
        'Destroy (asynchronous); accepted in every phase, supersedes any operation in flight. A pull-request preview records a stop.',
      tag,
      params: byId,
    },
    202,
    { description: 'Accepted; cleanup follows.', json: Compositions.CompositionView },
  ),
} as const satisfies Record<string, ApiOperation>;
