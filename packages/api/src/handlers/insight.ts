import { type insightOperations, pageOf } from '@svc/contract';
import { Checks, Insight } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

export function insightHandlers(
  deps: Insight.InsightDeps & Checks.CheckDeps,
): HandlersOf<typeof insightOperations> {
  const { tailLines, maxBytes } = Insight.logLimits;
  return {
    getComponentLogs: async (c, { path, query }) =>
      c.json(
        await Insight.componentLogs(
          { ...deps, log: c.get('log') },
          c.get('identity'),
          path.id,
          path.component,
          {
            tail_lines: query.tail_lines ?? tailLines.default,
            since_seconds: query.since_seconds ?? null,
            max_bytes: query.max_bytes ?? maxBytes.default,
            previous: query.previous ?? false,
          },
        ),
      ),
    getDiagnosis: async (c, { path }) => c.json(await Insight.diagnose(deps, c.get('identity'), path.id)),
    listVerification: async (c, { path, query }) =>
      c.json(await Checks.list(deps, c.get('identity'), path.id, pageOf(query))),
    recordCompositionCheck: async (c, { path, body }) =>
      c.json(await Checks.recordTest(deps, c.get('identity'), path.id, body), 201),
    getObservability: async (c, { path }) =>
      c.json(await Insight.observability(deps, c.get('identity'), path.id)),
  };
}
