import { readdirSync, readFileSync } from 'node:fs';
import { Resources, sha256 } from '@svc/core';
import { describe, expect, it } from 'vitest';
import * as X from '../testing/examples.ts';
import { epochSeconds, type Item, StoredItemError } from './entity.ts';
import * as E from './index.ts';

const days = (n: number) => n * 86_400;

interface Example {
  /** The item as its entity writes it (only the key, for items written by updates alone). */
  item: Item;
  /** What the entity reads the item back as, when it reads it. */
  reads?: { from: (item: Item) => unknown; as: unknown };
}

const example = (item: Item, from?: (item: Item) => unknown, as?: unknown): Example =>
  from ? { item, reads: { from, as } } : { item };

const idempotency = {
  id: E.IdempotencyRecord.recordId('alice', 'key-1'),
  request_hash: 'request-hash',
  token: 'lock-token',
  lock_expires_at: X.at,
  expires_at: X.at,
};
const project = { ...X.catalogVersion, project: 'svc-a' };

/** Every item type, written from the examples: the keys match the placeholders' values. */
const examples: Record<string, Example> = {
  [E.Composition.type]: example(E.Composition.toItem(X.composition), E.Composition.fromItem, X.composition),
  [E.Operation.type]: example(E.Operation.toItem(X.operation), E.Operation.fromItem, X.operation),
  [E.Event.type]: example(E.Event.toItem(X.event), E.Event.fromItem, X.event),
  [E.IdempotencyRecord.type]: example(E.IdempotencyRecord.toItem(idempotency), E.IdempotencyRecord.fromItem, {
    status: 'in_progress',
    request_hash: 'request-hash',
    token: 'lock-token',
    lock_expires_at: X.at,
    expires_at: X.at,
  }),
  [E.Project.type]: example(E.Project.toItem(project), E.Project.fromItem, {
    name: 'svc-a',
    version: 3,
    version_id: 'v1',
    default_baseline: 'staging',
    hash: 'catalog-hash',
    applied_at: X.at,
    components: ['svc-a'],
    baselines: ['svc-a'],
  }),
  [E.CatalogVersion.type]: example(
    E.CatalogVersion.toItem(X.catalogVersion),
    E.CatalogVersion.fromItem,
    E.Project.pointerOf(X.catalogVersion),
  ),
  [E.CatalogComponent.type]: example(
    E.CatalogComponent.toItem(X.catalogVersion, 'svc-a', X.componentEntry),
    E.CatalogComponent.fromItem,
    { name: 'svc-a', ...X.componentEntry },
  ),
  [E.CatalogBaseline.type]: example(
    E.CatalogBaseline.toItem(X.catalogVersion, 'svc-a', X.baselineEntry),
    E.CatalogBaseline.fromItem,
    { name: 'svc-a', ...X.baselineEntry },
  ),
  [E.NamespaceClaim.type]: example(
    E.NamespaceClaim.toItem(X.namespaceClaim),
    E.NamespaceClaim.fromItem,
    X.namespaceClaim,
  ),
  [E.ProviderSignIn.type]: example(
    E.ProviderSignIn.toItem(X.providerSignIn),
    E.ProviderSignIn.fromItem,
    X.providerSignIn,
  ),
  [E.RepositoryClaim.type]: example(
    E.RepositoryClaim.toItem(X.repositoryClaim),
    E.RepositoryClaim.fromItem,
    X.repositoryClaim,
  ),
  [E.Build.type]: example(E.Build.toItem(X.build), E.Build.fromItem, X.build),
  [E.Token.type]: example(E.Token.toItem(X.token, 'svc_secret'), E.Token.fromItem, X.token),
  [E.TokenName.type]: example(E.TokenName.toItem(X.token)),
  [E.Check.type]: example(E.Check.toItem(X.check), E.Check.fromItem, X.check),
  [E.SourceRef.type]: example(E.SourceRef.toItem(X.sourceRef), E.SourceRef.fromItem, X.sourceRef),
  [E.Draft.type]: example(E.Draft.toItem(X.draft), E.Draft.fromItem, X.draft),
  [E.FrontendBinding.type]: example(
    E.FrontendBinding.toItem(X.frontendBinding),
    E.FrontendBinding.fromItem,
    X.frontendBinding,
  ),
  [E.User.type]: example(E.User.toItem(X.person), E.User.fromItem, X.person),
  [E.OidcSubject.type]: example(E.OidcSubject.toItem(X.person, X.oidcSubject), E.OidcSubject.fromItem, {
    username: 'alice',
    user_id: 'usr-1',
  }),
  [E.Session.type]: example(E.Session.toItem('h1', X.session), E.Session.fromItem, X.session),
  [E.AuthorizationCode.type]: example(
    E.AuthorizationCode.toItem('h1', X.authorizationCode),
    E.AuthorizationCode.fromItem,
    X.authorizationCode,
  ),
  [E.SignInGrant.type]: example(
    E.SignInGrant.toItem('sig-1', X.signInGrant),
    E.SignInGrant.fromItem,
    X.signInGrant,
  ),
  [E.RefreshToken.type]: example(
    E.RefreshToken.toItem('h1', X.refreshToken),
    E.RefreshToken.fromItem,
    X.refreshToken,
  ),
  [E.AccessToken.type]: example(
    E.AccessToken.toItem('h1', X.accessToken),
    E.AccessToken.fromItem,
    X.accessToken,
  ),
  [E.PendingSignIn.type]: example(
    E.PendingSignIn.toItem('h1', X.pendingSignIn),
    E.PendingSignIn.fromItem,
    X.pendingSignIn,
  ),
  [E.RateWindow.type]: example(E.RateWindow.key('changes\nuser:alice', X.at)),
  [E.ProjectQuota.type]: example(E.ProjectQuota.key('demo')),
  [E.AuditEvent.type]: example(E.AuditEvent.toItem(X.auditEvent), E.AuditEvent.fromItem, X.auditEvent),
  [E.PreviewPolicy.type]: example(
    E.PreviewPolicy.toItem(X.previewPolicy),
    E.PreviewPolicy.fromItem,
    X.previewPolicy,
  ),
  [E.Preview.type]: example(E.Preview.toItem(X.preview), E.Preview.fromItem, X.preview),
  [E.PreviewPointer.type]: example(
    E.PreviewPointer.toItem({ ...X.preview, repository: 'Org/Svc-A' }),
    E.PreviewPointer.fromItem,
    { id: 'pr-1', project: 'demo', number: 7, state: 'waiting_for_build' },
  ),
  [E.ForgeDelivery.type]: example(E.ForgeDelivery.toItem(X.delivery), E.ForgeDelivery.fromItem, X.delivery),
  [E.ForgeHealth.type]: example(E.ForgeHealth.key),
  [E.ForgeRateBudget.type]: example(
    E.ForgeRateBudget.toItem(X.rateBudget),
    E.ForgeRateBudget.fromItem,
    X.rateBudget,
  ),
  [E.ForgeReconciliation.type]: example(
    E.ForgeReconciliation.toItem(X.reconciliation),
    E.ForgeReconciliation.fromItem,
    X.reconciliation,
  ),
  [E.ForgeChange.type]: example(E.ForgeChange.toItem(X.change), E.ForgeChange.fromItem, X.change),
  [E.ForgeSuspension.type]: example(
    E.ForgeSuspension.toItem(X.suspension),
    E.ForgeSuspension.fromItem,
    X.suspension,
  ),
};

const entityTypes: string[] = Object.values(E).map((entity) => entity.type);

const dataModel = () => readFileSync(new URL('../../../../docs/data-model.md', import.meta.url), 'utf8');

type Column = 'pk' | 'sk' | 'gsi1' | 'gsi2' | 'due';
const columns: readonly Column[] = ['pk', 'sk', 'gsi1', 'gsi2', 'due'];
type Layout = Record<Column, string[]>;

/** The item types of each row of docs/data-model.md's layout table, with the code spans of each key column. */
function documentedRows(): { types: string[]; layout: Layout }[] {
  const lines = dataModel().split('\n');
  const first = lines.findIndex((line) => line.startsWith('| item (`item_type`)'));
  const spans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  const rows: { types: string[]; layout: Layout }[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const [item = '', ...keys] = line.slice(1, -1).split(' | ');
    const layout = Object.fromEntries(columns.map((column, i) => [column, spans(keys[i] ?? '')])) as Layout;
    // "same" in gsi2 repeats gsi1's sort key.
    if (keys[3]?.includes('/ same')) layout.gsi2.push(layout.gsi1[1] as string);
    rows.push({ types: spans(item), layout });
  }
  return rows;
}

const fill = (span: string) =>
  span.replace(/<[^>]+>/g, (placeholder) => {
    const value = X.placeholders[placeholder];
    if (value === undefined) throw new Error(`no value for ${placeholder} in docs/data-model.md`);
    return value;
  });

/** Where the documented row of `type` says its item goes: a row of several types lists one sort key each. */
function documentedLayout(type: string): Layout | undefined {
  const row = documentedRows().find((r) => r.types.includes(type));
  if (!row) return undefined;
  const i = row.types.indexOf(type);
  // A row of several types gives each its own value of a column, or one they share.
  const pick = (spans: string[]) => {
    if (row.types.length === 1) return spans;
    const span = spans[i] ?? spans[0];
    return span === undefined ? [] : [span];
  };
  return Object.fromEntries(columns.map((column) => [column, pick(row.layout[column]).map(fill)])) as Layout;
}

const entry = (item: Item, index: string) =>
  [item[`${index}pk`], item[`${index}sk`]].filter((value): value is string => value !== undefined);

const layoutOf = (item: Item): Layout => ({
  pk: [item.pk as string],
  sk: [item.sk as string],
  gsi1: entry(item, 'gsi1'),
  gsi2: entry(item, 'gsi2'),
  due: entry(item, 'due'),
});

describe('the entities against docs/data-model.md', () => {
  it('documents every entity, and nothing else', () => {
    const documented = documentedRows().flatMap((row) => row.types);
    expect([...documented].sort()).toEqual([...entityTypes].sort());
    expect(Object.keys(examples).sort()).toEqual([...entityTypes].sort());
  });

  it.each(entityTypes)('writes %s items where the document says', (type) => {
    const layout = documentedLayout(type);
    expect(layout, `docs/data-model.md has no row for ${type}`).toBeDefined();
    expect(layoutOf((examples[type] as Example).item)).toEqual(layout);
  });
});

describe('items read back', () => {
  const read = Object.entries(examples).filter(([, e]) => e.reads);

  it.each(read)('a %s item reads back as the record written', (_type, { item, reads }) => {
    expect(reads?.from(item)).toEqual(reads?.as);
  });

  it.each(read)('a %s item carries its item_type', (type, { item }) => {
    expect(item.item_type).toBe(type);
  });

  it('refuses an item of another type, or one that lost an attribute, naming where and not what', () => {
    expect(() => E.Build.fromItem(E.Composition.toItem(X.composition))).toThrow(StoredItemError);
    const { lock_version: _, ...broken } = E.Composition.toItem(X.composition);
    expect(() => E.Composition.fromItem(broken)).toThrow(
      /composition item does not fit its schema at lock_version/,
    );
    const secret = E.Session.toItem('h1', { ...X.session, revoked_at: 12 as unknown as string });
    expect(() => E.Session.fromItem(secret)).toThrow(/at revoked_at$/);
  });
});

describe('what an item holds besides its record', () => {
  it('keeps a composition listed until destroyed and in the expiry queue until its destroy starts', () => {
    const destroying = E.Composition.toItem({ ...X.composition, phase: 'destroying' });
    expect(layoutOf(destroying).due).toEqual([]);
    expect(layoutOf(destroying).gsi1).toEqual(['COMPS', `${X.at}#c1`]);
    const destroyed = E.Composition.toItem({ ...X.composition, phase: 'destroyed', destroyed_at: X.at });
    expect(layoutOf(destroyed)).toMatchObject({ gsi1: [], gsi2: [], due: [] });
    expect(destroyed.ttl).toBe(epochSeconds(X.at) + days(30));
    expect(E.Composition.toItem(X.composition).ttl).toBeUndefined();
  });

  it('keeps an operation due while unfinished, and 30 days once finished', () => {
    expect(E.Operation.toItem(X.operation).ttl).toBeUndefined();
    expect(layoutOf(E.Operation.toItem({ ...X.operation, due_at: null })).due).toEqual([]);
    const finished = E.Operation.toItem({ ...X.operation, status: 'succeeded' });
    expect(layoutOf(finished).due).toEqual([]);
    expect(finished.ttl).toBe(epochSeconds(X.at) + days(30));
  });

  it('expires each item when docs/data-model.md says', () => {
    const later = epochSeconds(X.draft.expires_at);
    expect(examples[E.Event.type]?.item.ttl).toBe(epochSeconds(X.at) + days(31));
    expect(examples[E.Check.type]?.item.ttl).toBe(epochSeconds(X.at) + days(31));
    expect(examples[E.IdempotencyRecord.type]?.item.ttl).toBe(epochSeconds(X.at));
    expect(examples[E.Token.type]?.item.ttl).toBe(later + days(30));
    expect(examples[E.TokenName.type]?.item).toMatchObject({ ttl: later, held_until: X.token.expires_at });
    for (const type of [E.Draft, E.FrontendBinding, E.Session, E.AuthorizationCode, E.SignInGrant].map(
      (e) => e.type,
    )) {
      expect(examples[type]?.item.ttl, type).toBe(later);
    }
    for (const type of [E.RefreshToken, E.AccessToken, E.PendingSignIn].map((e) => e.type)) {
      expect(examples[type]?.item.ttl, type).toBe(later);
    }
    expect(examples[E.AuditEvent.type]?.item.ttl).toBe(epochSeconds(X.at) + days(366));
    expect(examples[E.ForgeDelivery.type]?.item.ttl).toBe(epochSeconds(X.at) + days(4));
  });

  it('keeps a token that never expires, and its name held, until it is revoked', () => {
    const forever = { ...X.token, expires_at: null };
    expect(E.Token.toItem(forever, 'svc_secret').ttl).toBeUndefined();
    expect(E.TokenName.toItem(forever)).toMatchObject({ held_until: '9999-12-31T23:59:59.999Z' });
    expect(E.TokenName.toItem(forever).ttl).toBeUndefined();
    const revoked = E.Token.toItem({ ...forever, revoked_at: X.at }, 'svc_secret');
    expect(revoked.ttl).toBe(epochSeconds(X.at) + days(30));
  });

  it('stores a policy TTL as preview_ttl, and what a delivery concerns in lower case', () => {
    expect(examples[E.PreviewPolicy.type]?.item).toMatchObject({ preview_ttl: '8h' });
    expect(examples[E.PreviewPolicy.type]?.item.ttl).toBeUndefined();
    expect(examples[E.ForgeDelivery.type]?.item.repository_keys).toEqual(['org/svc-a', 'org/other']);
  });

  it('lists a preview as waiting only while it waits, and an audit event by project only with one', () => {
    expect(layoutOf(E.Preview.toItem({ ...X.preview, state: 'deploying' })).gsi2).toEqual([]);
    expect(layoutOf(E.AuditEvent.toItem({ ...X.auditEvent, project: null })).gsi2).toEqual([]);
    expect(layoutOf(E.ForgeDelivery.toItem({ ...X.delivery, due_at: null })).due).toEqual([]);
  });

  it('bounds a due query after every entry due at that time, whatever its id', () => {
    const until = E.Operation.due.until(new Date(X.at)).until as string;
    expect(E.Operation.due.entry(X.at, 'zz-99').duesk <= until).toBe(true);
    expect(E.Operation.due.entry('2030-01-02T03:04:05.001Z', 'a').duesk > until).toBe(true);
  });
});

describe('items written before their record had its present shape', () => {
  it('reads a token issued before grants as admin or developer on every project, under its old subject', () => {
    const pk = `TOKEN#${sha256('svc_old')}`;
    const stored = { pk, sk: 'TOKEN', item_type: 'token', subject: 'ci', role: 'admin', created_at: X.at };
    expect(E.Token.fromItem(stored)).toEqual({
      id: `legacy-${sha256('svc_old').slice(0, 12)}`,
      name: 'ci',
      subject: 'ci',
      grants: [{ role: 'admin', project: '*', repository: null }],
      created_at: X.at,
      created_by: 'operator',
      expires_at: null,
      revoked_at: null,
    });
    expect(E.Token.fromItem({ ...stored, role: 'member' }).grants).toEqual([
      { role: 'developer', project: '*', repository: null },
    ]);
  });

  it('reads a person stored before ids as a person of their own at epoch 0', () => {
    const { id: _id, credentials_epoch: _epoch, oidc_subject: _subject, ...stored } = E.User.toItem(X.person);
    expect(E.User.fromItem(stored)).toEqual({
      ...X.person,
      id: 'usr-legacy-alice',
      credentials_epoch: 0,
      oidc_subject: null,
    });
  });

  it('reads a delivery stored before installations and outcomes as having none', () => {
    const { installation: _i, account: _a, outcome: _o, ...stored } = E.ForgeDelivery.toItem(X.delivery);
    expect(E.ForgeDelivery.fromItem(stored)).toEqual({
      ...X.delivery,
      installation: null,
      account: null,
      outcome: [],
    });
  });

  it('reads an operation stored before leases without a lease holder', () => {
    const { lease_holder: _, ...stored } = E.Operation.toItem(X.operation);
    const { lease_holder: _holder, ...operation } = X.operation;
    expect(E.Operation.fromItem(stored)).toStrictEqual(operation);
  });

  it('reads a policy stored before changes across repositories as not grouping', () => {
    const { group_by: _, ...stored } = E.PreviewPolicy.toItem({ ...X.previewPolicy, group_by: 'branch' });
    expect(E.PreviewPolicy.fromItem(stored)).toEqual({ ...X.previewPolicy, group_by: 'none' });
  });

  it('reads a preview stored before each feedback channel had its fingerprint as having none, its run not known open', () => {
    const stored = E.Preview.toItem(X.preview);
    const {
      comment_fingerprint: _c,
      check_run_fingerprint: _r,
      check_run_open: _o,
      ...ids
    } = X.preview.feedback;
    expect(E.Preview.fromItem({ ...stored, feedback: { ...ids, fingerprint: 'fp' } })).toEqual({
      ...X.preview,
      feedback: { ...ids, comment_fingerprint: null, check_run_fingerprint: null, check_run_open: false },
    });
  });

  it('reads health counters that were never written as none', () => {
    const stored = { ...E.ForgeHealth.key, item_type: 'forge_health', processing_failures: 2 };
    expect(E.ForgeHealth.fromItem(stored)).toEqual({ ...E.ForgeHealth.none, processing_failures: 2 });
  });
});

/** An access pattern as an entity declares it: an index pattern (`query`) or a `due` queue (`until`). */
interface Pattern {
  index: string;
  newestFirst?: boolean;
  query?: (of?: unknown) => { index?: string; partition: string; newestFirst: boolean };
  until?: (now: Date) => { partition: string };
}

const isPattern = (value: unknown): value is Pattern =>
  typeof value === 'object' &&
  value !== null &&
  'index' in value &&
  typeof (value as { entry?: unknown }).entry === 'function';

/** Every access pattern the entities declare. */
const declared = Object.values(E).flatMap((entity) =>
  Object.entries(entity)
    .filter((exported): exported is [string, Pattern] => isPattern(exported[1]))
    .map(([name, pattern]) => ({ type: entity.type, name, pattern })),
);

interface DocumentedPattern {
  types: string[];
  name: string;
  index: string;
  partition: string;
  order: string;
}

/** The rows of docs/data-model.md's access pattern table. */
function documentedPatterns(): DocumentedPattern[] {
  const lines = dataModel().split('\n');
  const first = lines.findIndex(
    (line) => line.startsWith('| item (`item_type`)') && line.includes('pattern'),
  );
  const span = (cell: string) => cell.match(/`([^`]+)`/)?.[1] ?? '';
  const rows: DocumentedPattern[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const [item = '', name = '', index = '', partition = '', order = ''] = line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
    const types = [...item.matchAll(/\(`([^`]+)`\)/g)].map((match) => match[1] as string);
    rows.push({ types, name: span(name), index: span(index), partition: span(partition), order });
  }
  return rows;
}

const documentedPairs = () =>
  documentedPatterns().flatMap((row) => row.types.map((type) => [type, row.name, row] as const));

describe('the access patterns against docs/data-model.md', () => {
  it('documents every access pattern an entity declares, and nothing else', () => {
    const documented = documentedPairs().map(([type, name]) => `${type} ${name}`);
    expect(documented.sort()).toEqual(declared.map(({ type, name }) => `${type} ${name}`).sort());
  });

  it.each(documentedPairs())(
    'reads the %s pattern %s where the document says, and finds the example item there',
    (type, name, row) => {
      const pattern = declared.find((d) => d.type === type && d.name === name)?.pattern as Pattern;
      const example = examples[type] as Example;
      const partition = pattern.until
        ? pattern.until(new Date(X.at)).partition
        : pattern.query?.(example.reads?.as).partition;
      expect(pattern.index).toBe(row.index);
      expect(partition).toBe(fill(row.partition));
      expect(example.item[`${row.index}pk`], 'the example item is in the partition').toBe(partition);
      const order = pattern.until ? 'due first' : pattern.newestFirst ? 'newest first' : 'by sort key';
      expect(order).toBe(row.order);
    },
  );

  it('are the only way a store reaches an index: no store names one or its key attributes', () => {
    const indexes = Resources.table.globalIndexes;
    const names = indexes.map((index) => index.name).join('|');
    const attributes = indexes.flatMap((index) => [index.partitionKey, index.sortKey]).join('|');
    // A name as a string (comments may say `due`), an attribute anywhere.
    const spelled = new RegExp(`['"](${names})['"]|\\b(${attributes})\\b`);
    const folder = new URL('../', import.meta.url);
    const stores = readdirSync(folder).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    expect(stores).toContain('composition-store.ts');
    const offenders = stores.filter((file) => spelled.test(readFileSync(new URL(file, folder), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
