import type {
  BuildStore,
  CatalogStore,
  Clock,
  CompositionStore,
  DraftStore,
  FrontendStore,
  IdempotencyStore,
  JobQueue,
  TokenStore,
} from '@svc/core';
import { dynamoBuildStore } from './build-store.ts';
import { dynamoCatalogStore } from './catalog-store.ts';
import type { AwsClients } from './clients.ts';
import { dynamoCompositionStore } from './composition-store.ts';
import { dynamoDraftStore } from './draft-store.ts';
import { dynamoFrontendStore } from './frontend-store.ts';
import { dynamoIdempotencyStore } from './idempotency-store.ts';
import { sqsJobQueue } from './job-queue.ts';
import { dynamoTokenStore } from './token-store.ts';

export interface AwsStores {
  compositions: CompositionStore;
  catalog: CatalogStore;
  builds: BuildStore;
  idempotency: IdempotencyStore;
  tokens: TokenStore;
  jobs: JobQueue;
  drafts: DraftStore;
  frontends: FrontendStore;
}

/** Every port implementation on one table and one queue. */
export function awsStores(
  clients: AwsClients,
  names: { tableName: string; jobQueueUrl: string },
  clock: Clock,
): AwsStores {
  const table = { name: names.tableName, documents: clients.documents };
  return {
    compositions: dynamoCompositionStore(table, clock),
    catalog: dynamoCatalogStore(table),
    builds: dynamoBuildStore(table),
    idempotency: dynamoIdempotencyStore(table),
    tokens: dynamoTokenStore(table),
    jobs: sqsJobQueue(clients.sqs, names.jobQueueUrl),
    drafts: dynamoDraftStore(table),
    frontends: dynamoFrontendStore(table),
  };
}
