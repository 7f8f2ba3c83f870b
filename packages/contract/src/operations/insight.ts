/** What a composition tells about itself: logs, diagnosis, verification, observability links. */
import { Checks, Insight } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { componentParam, compositionParam } from '../params.ts';
import { booleanParam, integerParam } from '../query.ts';
import { list, read, write } from '../shapes.ts';

const tag = 'compositions';
const byId = { id: compositionParam };
const { tailLines, sinceSeconds, maxBytes } = Insight.logLimits;

export const insightOperations = {
  getComponentLogs: {
    method: 'get',
    path: '/v1/compositions/{id}/components/{component}/logs',
    permission: 'composition:read',
    summary: "Bounded log snapshot of one component: the fork's pods, or the shared baseline's (unfiltered).",
    tag,
    params: { ...byId, component: componentParam },
    query: v.object({
      tail_lines: v.optional(
        integerParam({ min: 1, max: tailLines.max }, 'Lines per pod (default 200, max 1000).'),
      ),
      since_seconds: v.optional(
        integerParam({ min: 1, max: sinceSeconds.max }, 'Only lines this recent (max 86400).'),
      ),
      max_bytes: v.optional(
        integerParam({ min: 1, max: maxBytes.max }, 'Total byte cap (default 65536, max 262144).'),
      ),
      previous: v.optional(booleanParam('The last terminated container instance.')),
    }),
    responses: {
      200: {
        description: 'The snapshot; partial and truncated say what is missing.',
        json: Insight.LogSnapshot,
      },
    },
  },

  getDiagnosis: read(
    {
      path: '/v1/compositions/{id}/diagnosis',
      permission: 'composition:read',
      summary:
        'State, recorded blockers, notes, verification freshness and cleanup state; unknown is said, never guessed.',
      tag,
      params: byId,
    },
    { description: 'The diagnosis.', json: Insight.DiagnosisView },
  ),

  listVerification: list(
    {
      path: '/v1/compositions/{id}/verification',
      permission: 'composition:read',
      summary: 'Retained checks, newest first, each with its freshness derived now.',
      tag,
      params: byId,
    },
    { description: 'A page of checks.', json: Checks.CheckList },
  ),

  recordCompositionCheck: write(
    'post',
    {
      path: '/v1/compositions/{id}/checks',
      permission: 'verification:record',
      summary: 'Record a test result (CI ran its tests against the preview) in the verification list.',
      tag,
      params: byId,
      body: Checks.CompositionCheckBody,
    },
    201,
    { description: 'Recorded, as the verification list shows it.', json: Checks.CheckView },
  ),

  getObservability: read(
    {
      path: '/v1/compositions/{id}/observability',
      permission: 'composition:read',
      summary: "The baseline's observability link templates resolved for this composition.",
      tag,
      params: byId,
    },
    { description: 'Resolved links.', json: Insight.ObservabilityView },
  ),
} as const satisfies Record<string, ApiOperation>;
