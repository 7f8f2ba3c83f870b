/** The probes outside `/v1`: health for load balancers and monitors, the server's build. */
import { HealthReport, VersionView } from '@svc/core/health';
import type { OpenOperation } from '../operation.ts';

const tag = 'service';

export const serviceOperations = {
  getHealth: {
    method: 'get',
    path: '/healthz',
    summary: 'Each dependency (DynamoDB, SQS, the clusters) with its latency, and the auth mode.',
    tag,
    proof: 'none: open to load balancers and monitors',
    responses: {
      200: { description: 'Every dependency answers.', json: HealthReport },
      503: { description: 'A dependency does not answer (status degraded).', json: HealthReport },
    },
  },

  getVersion: {
    method: 'get',
    path: '/version',
    summary: "The server's release and commit.",
    tag,
    proof: 'none',
    responses: { 200: { description: 'Release and commit.', json: VersionView } },
  },
} as const satisfies Record<string, OpenOperation>;
