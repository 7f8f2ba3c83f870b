/** Compositions: create, plan, read, update and destroy (spec 4.1). */
import { Compositions, ErrorCode } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { compositionParam } from '../params.ts';
import { pageParams, projectFilter } from '../query.ts';

const tag = 'compositions';
const byId = { id: compositionParam };

const read = <J extends v.GenericSchema>(path: string, summary: string, json: J) =>
  ({
    method: 'get',
    path,
    permission: 'composition:read',
    summary,
    tag,
    params: byId,
    responses: { 200: { description: summary, json } },
    errors: [ErrorCode.NotFound],
  }) as const satisfies ApiOperation;

export const compositionOperations = {
  createComposition: {
    method: 'post',
    path: '/v1/compositions',
    permission: 'composition:write',
    summary: 'Create a composition (asynchronous).',
    tag,
    body: Compositions.CreateCompositionBody,
    headers: {
      'Idempotency-Key': {
        description: 'Makes the create safe to retry: same key and body replay the first answer for 24 h.',
        schema: v.pipe(v.string(), v.minLength(1), v.maxLength(128), v.regex(/^[\x20-\x7e]+$/)),
      },
    },
    responses: {
      202: {
        description: 'Accepted; Location points at the composition.',
        json: Compositions.CompositionView,
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
      ErrorCode.NamespaceTaken,
    ],
  },

  listCompositions: {
    method: 'get',
    path: '/v1/compositions',
    permission: 'composition:read',
    summary: 'List compositions not yet destroyed, newest first.',
    tag,
    query: v.object({ project: projectFilter, ...pageParams }),
    responses: { 200: { description: 'A page of compositions.', json: Compositions.CompositionList } },
    errors: [ErrorCode.InvalidQuery],
  },

  planComposition: {
    method: 'post',
    path: '/v1/compositions/plan',
    permission: 'composition:read',
    summary: 'Plan a create without doing it: read-only, reserves nothing.',
    tag,
    body: Compositions.CreateCompositionBody,
    responses: {
      200: { description: 'The plan; blockers are data, not errors.', json: Compositions.PlanView },
    },
    errors: [
      ErrorCode.MalformedJson,
      ErrorCode.ValidationFailed,
      ErrorCode.UnsupportedMediaType,
      ErrorCode.PayloadTooLarge,
    ],
  },

  getComposition: read(
    '/v1/compositions/{id}',
    'Full desired and observed state.',
    Compositions.CompositionView,
  ),
  getCompositionStatus: read(
    '/v1/compositions/{id}/status',
    'Phase and latest operation.',
    Compositions.CompositionStatusView,
  ),
  getCompositionEndpoints: read(
    '/v1/compositions/{id}/endpoints',
    'Preview URLs and routing readiness.',
    Compositions.CompositionEndpointsView,
  ),

  listCompositionEvents: {
    method: 'get',
    path: '/v1/compositions/{id}/events',
    permission: 'composition:read',
    summary: 'Durable audit events, newest first.',
    tag,
    params: byId,
    query: v.object(pageParams),
    responses: { 200: { description: 'A page of events.', json: Compositions.EventList } },
    errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
  },

  updateComposition: {
    method: 'patch',
    path: '/v1/compositions/{id}',
    permission: 'composition:write',
    summary: 'Roll out a new complete override set (asynchronous).',
    tag,
    params: byId,
    body: Compositions.UpdateCompositionBody,
    responses: {
      202: { description: 'Accepted; the rollout follows.', json: Compositions.CompositionView },
    },
    errors: [
      ErrorCode.NotFound,
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

  destroyComposition: {
    method: 'delete',
    path: '/v1/compositions/{id}',
    permission: 'composition:write',
    summary:
      'Destroy (asynchronous); accepted in every phase, supersedes any operation in flight. A pull-request preview records a stop.',
    tag,
    params: byId,
    responses: { 202: { description: 'Accepted; cleanup follows.', json: Compositions.CompositionView } },
    errors: [ErrorCode.NotFound],
  },
} as const satisfies Record<string, ApiOperation>;
