/**
 * The table's layout: every key value and prefix, item type by item type, in the order of
 * docs/data-model.md (keep the two in step). Attribute and index names come from core's
 * resources.ts; this file only builds the values stored in them.
 */
import { Resources, sha256 } from '@svc/core';

type GlobalIndex = (typeof Resources.table.globalIndexes)[number];
export type IndexName = GlobalIndex['name'];
type IndexNamed<N extends IndexName> = Extract<GlobalIndex, { name: N }>;

export function globalIndex<N extends IndexName>(name: N): IndexNamed<N> {
  return Resources.table.globalIndexes.find((index) => index.name === name) as IndexNamed<N>;
}

/** A base-table key. */
export type Key = Record<typeof Resources.table.partitionKey | typeof Resources.table.sortKey, string>;

/** An item's entry in a global index: the index's key attributes and their values. */
export type IndexEntry<N extends IndexName> = Record<
  IndexNamed<N>['partitionKey'] | IndexNamed<N>['sortKey'],
  string
>;

function indexEntry<N extends IndexName>(name: N, partition: string, sort: string): IndexEntry<N> {
  const { partitionKey, sortKey } = globalIndex(name);
  return { [partitionKey]: partition, [sortKey]: sort } as IndexEntry<N>;
}

/** Sort values of time-ordered entries: the time orders, the id keeps equal times apart. */
const timeOrdered = (at: string, id: string) => `${at}#${id}`;

/** The `item_type` attribute of each kind of item. */
export const ItemType = {
  Composition: 'composition',
  Operation: 'operation',
  Event: 'event',
  Idempotency: 'idempotency',
  Project: 'project',
  CatalogVersion: 'catalog-version',
  CatalogComponent: 'catalog-component',
  CatalogBaseline: 'catalog-baseline',
  NamespaceClaim: 'namespace_claim',
  Build: 'build',
  Token: 'token',
  TokenName: 'token_name',
  Check: 'check',
  SourceRef: 'source_ref',
  Draft: 'draft',
  FrontendBinding: 'frontend_binding',
  User: 'user',
  OidcSubject: 'oidc_subject',
  Session: 'session',
  AuthorizationCode: 'authorization_code',
  SignInGrant: 'sign_in_grant',
  RefreshToken: 'refresh_token',
  AccessToken: 'access_token',
  PendingSignIn: 'pending_sign_in',
  RateWindow: 'rate_window',
  ProjectQuota: 'project_quota',
  AuditEvent: 'audit_event',
  PreviewPolicy: 'preview_policy',
  Preview: 'preview',
  PreviewPointer: 'preview_pointer',
  ForgeDelivery: 'forge_delivery',
  ForgeHealth: 'forge_health',
  ForgeRateBudget: 'forge_rate_budget',
  ForgeReconciliation: 'forge_reconciliation',
  ForgeSuspension: 'forge_suspension',
} as const;
export type ItemType = (typeof ItemType)[keyof typeof ItemType];

/** Partitions of the sparse `due` index: one work queue per sweep. */
export const DueQueue = { Expiry: 'EXPIRY', Operations: 'OPS', Idempotency: 'IDEM', Forge: 'FORGE' } as const;
export type DueQueue = (typeof DueQueue)[keyof typeof DueQueue];

export const dueEntry = (queue: DueQueue, at: string, id: string) =>
  indexEntry('due', queue, timeOrdered(at, id));

/** The sort key bound of a `due` Query: every entry due at or before `now`, whatever its id. */
export const dueUntil = (now: Date) => `${now.toISOString()}#~`;

/** Everything of one composition (operations, events, checks) shares its partition. */
const compositionPartition = (id: string) => `COMP#${id}`;

export const composition = (id: string): Key => ({ pk: compositionPartition(id), sk: 'COMP' });

/** gsi1: every composition not destroyed; gsi2: those of one project. Newest first. */
export const allCompositions = 'COMPS';
export const projectCompositions = (project: string) => `COMPS#${project}`;
export const listedComposition = (record: { id: string; project: string; created_at: string }) => {
  const order = timeOrdered(record.created_at, record.id);
  return {
    ...indexEntry('gsi1', allCompositions, order),
    ...indexEntry('gsi2', projectCompositions(record.project), order),
  };
};

export const operation = (compositionId: string, operationId: string): Key => ({
  pk: compositionPartition(compositionId),
  sk: `OP#${operationId}`,
});

/** A Query for the events or the checks of one composition: its partition and a sort key prefix. */
export interface PartitionPrefix {
  partition: string;
  prefix: string;
}

const eventPrefix = 'EVENT#';
export const event = (record: { composition_id: string; at: string; id: string }): Key => ({
  pk: compositionPartition(record.composition_id),
  sk: `${eventPrefix}${timeOrdered(record.at, record.id)}`,
});
export const eventsOf = (compositionId: string): PartitionPrefix => ({
  partition: compositionPartition(compositionId),
  prefix: eventPrefix,
});

/** The record id is a hash, so the raw Idempotency-Key is never stored. */
export const idempotencyRecordId = (subject: string, idempotencyKey: string) =>
  sha256(`${subject}\n${idempotencyKey}`);
export const idempotencyRecord = (recordId: string): Key => ({ pk: `IDEM#${recordId}`, sk: 'IDEM' });

export const projectPointer = (project: string): Key => ({ pk: `PROJECT#${project}`, sk: 'CURRENT' });
/** gsi1: every project, by name. */
export const allProjects = 'PROJECTS';
export const listedProject = (project: string) => indexEntry('gsi1', allProjects, project);

/** A catalog version's items: its meta item (the pointer's fields), one per component and per baseline. */
export const catalogVersion = (project: string, versionId: string) => {
  const pk = `CATALOG#${project}#${versionId}`;
  return {
    partition: pk,
    meta: { pk, sk: 'META' } satisfies Key,
    component: (name: string): Key => ({ pk, sk: `COMPONENT#${name}` }),
    baseline: (name: string): Key => ({ pk, sk: `BASELINE#${name}` }),
  };
};

/** One project holds a namespace of a cluster; gsi1 lists a project's, so an apply can give them up. */
export const namespaceClaim = (cluster: string, namespace: string): Key => ({
  pk: `NSCLAIM#${sha256(`${cluster}\n${namespace}`).slice(0, 32)}`,
  sk: 'NSCLAIM',
});
export const claimsOf = (project: string) => `NSCLAIMS#${project}`;
export const listedClaim = (project: string, cluster: string, namespace: string) =>
  indexEntry('gsi1', claimsOf(project), `${cluster}#${namespace}`);

export const build = (id: string): Key => ({ pk: `BUILD#${id}`, sk: 'BUILD' });
/** gsi1: a project's builds; gsi2: one component's. Newest first. */
export const projectBuilds = (project: string) => `BUILDS#${project}`;
export const componentBuilds = (project: string, component: string) => `BUILDS#${project}#${component}`;
export const listedBuild = (record: {
  id: string;
  project: string;
  component: string;
  published_at: string;
}) => {
  const order = timeOrdered(record.published_at, record.id);
  return {
    ...indexEntry('gsi1', projectBuilds(record.project), order),
    ...indexEntry('gsi2', componentBuilds(record.project, record.component), order),
  };
};

/** Only the hash of a token is stored. */
export const token = (secret: string): Key => ({ pk: `TOKEN#${sha256(secret)}`, sk: 'TOKEN' });
/** gsi1: every machine token by id (ids sort by issue time), so lists and revocation find it. */
export const allTokens = 'TOKENS';
export const listedToken = (id: string) => indexEntry('gsi1', allTokens, id);
/** A live token's name, held until it expires or is revoked: names are unique among live tokens. */
export const tokenName = (name: string): Key => ({ pk: `TOKENNAME#${name}`, sk: 'TOKENNAME' });

const checkPrefix = 'CHECK#';
export const check = (record: { composition_id: string; ran_at: string; id: string }): Key => ({
  pk: compositionPartition(record.composition_id),
  sk: `${checkPrefix}${timeOrdered(record.ran_at, record.id)}`,
});
export const checksOf = (compositionId: string): PartitionPrefix => ({
  partition: compositionPartition(compositionId),
  prefix: checkPrefix,
});

/** One partition per ref of a component's repository; sort keys order its publications. */
export const sourceRefPartition = (project: string, component: string, repository: string, ref: string) =>
  `SOURCE#${project}#${component}#${repository}#${ref}`;
export const sourceRef = (entry: {
  project: string;
  component: string;
  repository: string;
  ref: string;
  published_at: string;
  build_id: string;
}): Key => ({
  pk: sourceRefPartition(entry.project, entry.component, entry.repository, entry.ref),
  sk: timeOrdered(entry.published_at, entry.build_id),
});

/** One item per project and author; the author is hashed so any subject makes a safe key. */
export const draft = (project: string, author: string): Key => ({
  pk: `DRAFT#${project}#${sha256(author).slice(0, 32)}`,
  sk: 'DRAFT',
});

export const frontendBinding = (project: string, frontend: string, revision: string): Key => ({
  pk: `FRONTEND#${project}#${frontend}`,
  sk: `REV#${revision}`,
});

export const user = (username: string): Key => ({ pk: `USER#${username}`, sk: 'USER' });
/** gsi1: every user by name. */
export const allUsers = 'USERS';
export const listedUser = (username: string) => indexEntry('gsi1', allUsers, username);
/** Who an identity provider's (issuer, sub) is: hashed, so any subject makes a safe key. */
export const oidcSubject = (issuer: string, sub: string): Key => ({
  pk: `OIDCSUB#${sha256(`${issuer}\n${sub}`)}`,
  sk: 'OIDCSUB',
});

/** Sign-in secrets are keyed by their SHA-256 (`hash`); the secret itself is never stored. */
export const session = (hash: string): Key => ({ pk: `SESSION#${hash}`, sk: 'SESSION' });
export const authorizationCode = (hash: string): Key => ({ pk: `OAUTHCODE#${hash}`, sk: 'CODE' });
export const signInGrant = (id: string): Key => ({ pk: `SIGNIN#${id}`, sk: 'GRANT' });
export const refreshToken = (hash: string): Key => ({ pk: `REFRESH#${hash}`, sk: 'REFRESH' });
export const accessToken = (hash: string): Key => ({ pk: `ACCESS#${hash}`, sk: 'ACCESS' });
export const pendingSignIn = (hash: string): Key => ({ pk: `PENDING#${hash}`, sk: 'PENDING' });
/** gsi1: a person's sessions and CLI sign-ins by id (sortable ids: newest last). */
export const signInsOf = (userId: string) => `SIGNINS#${userId}`;
export const listedSignIn = (userId: string, id: string) => indexEntry('gsi1', signInsOf(userId), id);

/** One counter per rate-limited key and fixed window; the key is hashed so any name is safe. */
export const rateWindow = (key: string, windowStart: string): Key => ({
  pk: `RATE#${sha256(key).slice(0, 32)}#${windowStart}`,
  sk: 'RATE',
});

/** The count of a project's live compositions, checked by every create. */
export const projectQuota = (project: string): Key => ({ pk: `QUOTA#${project}`, sk: 'LIVE' });

export const auditEvent = (id: string): Key => ({ pk: `AUDIT#${id}`, sk: 'AUDIT' });
/** gsi1: the whole trail; gsi2: one project's. Newest first. */
export const allAuditEvents = 'AUDIT';
export const projectAuditEvents = (project: string) => `AUDIT#${project}`;
export const listedAuditEvent = (event: { id: string; at: string; project: string | null }) => {
  const order = timeOrdered(event.at, event.id);
  return {
    ...indexEntry('gsi1', allAuditEvents, order),
    ...(event.project ? indexEntry('gsi2', projectAuditEvents(event.project), order) : {}),
  };
};
/** Forge keys use the repository in lower case: the forge compares `owner/name` case-insensitively. */
const repo = (repository: string) => repository.toLowerCase();

export const previewPolicy = (project: string, repository: string): Key => ({
  pk: `POLICY#${project}#${repo(repository)}`,
  sk: 'POLICY',
});
/** gsi1: every policy, by project and repository; gsi2: a repository's policies (one per project). */
export const allPolicies = 'POLICIES';
export const repositoryPolicies = (repository: string) => `POLICIES#${repo(repository)}`;
export const listedPolicy = (policy: { project: string; repository: string }) => ({
  ...indexEntry('gsi1', allPolicies, `${policy.project}#${repo(policy.repository)}`),
  ...indexEntry('gsi2', repositoryPolicies(policy.repository), policy.project),
});

export const preview = (id: string): Key => ({ pk: `PREVIEW#${id}`, sk: 'PREVIEW' });
/** gsi1: every preview, newest first. */
export const allPreviews = 'PREVIEWS';
export const listedPreview = (record: { id: string; created_at: string }) =>
  indexEntry('gsi1', allPreviews, timeOrdered(record.created_at, record.id));
/** gsi2, sparse: previews waiting for a build of one commit, found when that build is published. */
export const waitingForBuild = (repository: string, commitSha: string) =>
  `FORGEWAIT#${repo(repository)}#${commitSha}`;
export const waitingPreview = (record: { id: string; repository: string; head_sha: string }) =>
  indexEntry('gsi2', waitingForBuild(record.repository, record.head_sha), record.id);

/** One pointer per preview in its repository's partition, with its state: the reconciliation's list. */
export const repositoryPreviews = (repository: string) => `FORGEREPO#${repo(repository)}`;
export const previewPointer = (repository: string, id: string): Key => ({
  pk: repositoryPreviews(repository),
  sk: `PREVIEW#${id}`,
});

export const delivery = (id: string): Key => ({ pk: `DELIVERY#${id}`, sk: 'DELIVERY' });
/** gsi1: every delivery kept, newest first (what an operator lists). */
export const allDeliveries = 'DELIVERIES';
export const listedDelivery = (record: { id: string; received_at: string }) =>
  indexEntry('gsi1', allDeliveries, timeOrdered(record.received_at, record.id));

/** The forge's health items share one small partition. */
const forgePartition = 'FORGE';
export const forgeHealth: Key = { pk: forgePartition, sk: 'HEALTH' };
const budgetPrefix = 'BUDGET#';
export const rateBudget = (installation: string): Key => ({
  pk: forgePartition,
  sk: `${budgetPrefix}${installation}`,
});
export const budgetsOf: PartitionPrefix = { partition: forgePartition, prefix: budgetPrefix };
export const reconciliation: Key = { pk: forgePartition, sk: 'RECONCILIATION' };
const suspensionPrefix = 'SUSPENDED#';
/** A suspended installation, by its account in lower case (GitHub compares logins case-insensitively). */
export const suspension = (account: string): Key => ({
  pk: forgePartition,
  sk: `${suspensionPrefix}${account.toLowerCase()}`,
});
export const suspensionsOf: PartitionPrefix = { partition: forgePartition, prefix: suspensionPrefix };
