import { type Auth, ErrorCode, Insight, Verification } from '@svc/core';
import type { Context } from 'hono';
import type { Registry } from '../registry.ts';
import { integerQuery, invalidQuery, pageQuery, readJson } from '../request.ts';
import { compositionId, pageParams, pathName } from './params.ts';

const tag = 'compositions';

function booleanQuery(c: Context, name: string): boolean {
  const raw = c.req.query(name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true' || raw === '') return true;
  throw invalidQuery(name, 'must be true or false');
}

const componentName = (c: Context) => pathName(c, 'component', 'component');

export function insightRoutes(
  registry: Registry,
  deps: Insight.InsightDeps & { audit: Auth.AuditStore },
): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/compositions/{id}/components/{component}/logs',
      operationId: 'getComponentLogs',
      permission: 'composition:read',
      summary:
        "Bounded log snapshot of one component: the fork's pods, or the shared baseline's (unfiltered).",
      tag,
      query: [
        {
          name: 'tail_lines',
          description: 'Lines per pod (default 200, max 1000).',
          schema: { type: 'integer', minimum: 1, maximum: 1000 },
        },
        {
          name: 'since_seconds',
          description: 'Only lines this recent (max 86400).',
          schema: { type: 'integer', minimum: 1, maximum: 86400 },
        },
        {
          name: 'max_bytes',
          description: 'Total byte cap (default 65536, max 262144).',
          schema: { type: 'integer', minimum: 1, maximum: 262144 },
        },
        {
          name: 'previous',
          description: 'The last terminated container instance.',
          schema: { type: 'boolean' },
        },
      ],
      responses: {
        200: {
          description: 'The snapshot; partial and truncated say what is missing.',
          schema: Insight.LogSnapshot,
        },
      },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) =>
      c.json(
        await Insight.componentLogs(
          { ...deps, log: c.get('log') },
          c.get('identity'),
          compositionId(c),
          componentName(c),
          {
            tail_lines:
              integerQuery(c, 'tail_lines', { min: 1, max: Insight.logLimits.tailLines.max }) ??
              Insight.logLimits.tailLines.default,
            since_seconds:
              integerQuery(c, 'since_seconds', { min: 1, max: Insight.logLimits.sinceSeconds.max }) ?? null,
            max_bytes:
              integerQuery(c, 'max_bytes', { min: 1, max: Insight.logLimits.maxBytes.max }) ??
              Insight.logLimits.maxBytes.default,
            previous: booleanQuery(c, 'previous'),
          },
        ),
      ),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/compositions/{id}/diagnosis',
      operationId: 'getDiagnosis',
      permission: 'composition:read',
      summary:
        'State, recorded blockers, notes, verification freshness and cleanup state; unknown is said, never guessed.',
      tag,
      responses: { 200: { description: 'The diagnosis.', schema: Insight.DiagnosisView } },
      errors: [ErrorCode.NotFound],
    },
    async (c) => c.json(await Insight.diagnose(deps, c.get('identity'), compositionId(c))),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/compositions/{id}/verification',
      operationId: 'listVerification',
      permission: 'composition:read',
      summary: 'Retained checks, newest first, each with its freshness derived now.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of checks.', schema: Verification.CheckList } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) =>
      c.json(await Insight.listVerification(deps, c.get('identity'), compositionId(c), pageQuery(c))),
  );

  registry.add(
    {
      method: 'post',
      path: '/v1/compositions/{id}/checks',
      operationId: 'recordCompositionCheck',
      permission: 'verification:record',
      summary: 'Record a test result (CI ran its tests against the preview) in the verification list.',
      tag,
      body: Insight.CompositionCheckBody,
      responses: {
        201: { description: 'Recorded, as the verification list shows it.', schema: Verification.CheckView },
      },
      errors: [
        ErrorCode.NotFound,
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.UnsupportedMediaType,
      ],
    },
    async (c) =>
      c.json(await Insight.recordCheck(deps, c.get('identity'), compositionId(c), await readJson(c)), 201),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/compositions/{id}/observability',
      operationId: 'getObservability',
      permission: 'composition:read',
      summary: "The baseline's observability link templates resolved for this composition.",
      tag,
      responses: { 200: { description: 'Resolved links.', schema: Insight.ObservabilityView } },
      errors: [ErrorCode.NotFound],
    },
    async (c) => c.json(await Insight.observability(deps, c.get('identity'), compositionId(c))),
  );
}
