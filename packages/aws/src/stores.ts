import {
  type Auth,
  type Builds,
  type Catalog,
  type Checks,
  type Clock,
  type Cursors,
  cursors,
  type Drafts,
  type Forge,
  type Frontends,
  type Idempotency,
  type Jobs,
  type Rollout,
} from '@svc/core';
import { dynamoAuditStore } from './audit-store.ts';
import { dynamoBuildStore } from './build-store.ts';
import { dynamoCatalogStore } from './catalog-store.ts';
import { dynamoCheckStore } from './check-store.ts';
import type { AwsClients } from './clients.ts';
import { dynamoCompositionStore } from './composition-store.ts';
import { dynamoDraftStore } from './draft-store.ts';
import { dynamoForgeStore } from './forge-store.ts';
import { dynamoFrontendStore } from './frontend-store.ts';
import { dynamoIdempotencyStore } from './idempotency-store.ts';
import { sqsJobQueue } from './job-queue.ts';
import { dynamoRateLimiter } from './rate-limiter.ts';
import { secretSeal } from './sealed-tokens.ts';
import { dynamoSignInStore } from './sign-in-store.ts';
import { dynamoTokenStore } from './token-store.ts';
import { dynamoUserStore } from './user-store.ts';

export interface AwsStores {
  /** Compositions, their operations and events, and the checks the worker's steps ran. */
  compositions: Rollout.RolloutStore;
  checks: Checks.CheckStore;
  catalog: Catalog.CatalogStore;
  builds: Builds.BuildStore;
  idempotency: Idempotency.IdempotencyStore;
  tokens: Auth.TokenStore;
  jobs: Jobs.JobQueue;
  drafts: Drafts.DraftStore;
  frontends: Frontends.FrontendStore;
  users: Auth.UserStore;
  signIns: Auth.SignInStore;
  rateLimiter: Auth.RateLimiter;
  audit: Auth.AuditStore;
  forgeStore: Forge.ForgeStore;
  /** The seal of every list's cursors, for lists paged in memory too. */
  cursors: Cursors;
}

/**
 * Every port implementation on one table and one queue. `cursorKey` is the installation's secret
 * for sealing page cursors (at least 32 characters).
 */
export function awsStores(
  clients: AwsClients,
  names: { tableName: string; jobQueueUrl: string },
  clock: Clock,
  cursorKey: string,
): AwsStores {
  const seal = cursors(cursorKey);
  const table = { name: names.tableName, documents: clients.documents, cursors: seal };
  return {
    compositions: dynamoCompositionStore(table, clock),
    checks: dynamoCheckStore(table),
    catalog: dynamoCatalogStore(table),
    builds: dynamoBuildStore(table),
    idempotency: dynamoIdempotencyStore(table),
    tokens: dynamoTokenStore(table),
    jobs: sqsJobQueue(clients.sqs, names.jobQueueUrl),
    drafts: dynamoDraftStore(table),
    frontends: dynamoFrontendStore(table),
    users: dynamoUserStore(table),
    signIns: dynamoSignInStore(table, secretSeal(cursorKey)),
    rateLimiter: dynamoRateLimiter(table),
    audit: dynamoAuditStore(table),
    forgeStore: dynamoForgeStore(table),
    cursors: seal,
  };
}
