/** The probes outside `/v1`: health for load balancers and monitors, the server's build. */
import { HealthReport } from '@svc/core/health';
import { VersionView } from '@svc/core/version';
import type { OpenOperation } from '../operation.ts';

const tag = 'service';

/** Each its own declaration, so a program that binds only `getVersion` (`svc version`) loads no more. */
const getHealth = {
  method: 'get',
  path: '/healthz',
  summary:
    'Each dependency (DynamoDB, SQS, the clusters) with its latency, and the auth mode. Each cluster by name (cluster:<name>) to a caller with a credential the mode accepts, a fresh round; to anyone else one cluster entry for all, from the round of the last 5 s.',
  tag,
  proof: 'none: open to load balancers and monitors',
  responses: {
    200: { description: 'Every dependency answers.', json: HealthReport },
    503: { description: 'A dependency does not answer (status degraded).', json: HealthReport },
  },
} as const satisfies OpenOperation;

export const getVersion = {
  method: 'get',
  path: '/version',
  summary: "The server's release and commit.",
  tag,
  proof: 'none',
  responses: { 200: { description: 'Release and commit.', json: VersionView } },
} as const satisfies OpenOperation;

export const serviceOperations = { getHealth, getVersion };
