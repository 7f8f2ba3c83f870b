import { readFileSync } from 'node:fs';
import { sha256 } from '@svc/core';
import { describe, expect, it } from 'vitest';
import * as Keys from './keys.ts';

type Column = 'item' | 'pk' | 'sk' | 'gsi1' | 'gsi2' | 'due';
const columns: readonly Column[] = ['item', 'pk', 'sk', 'gsi1', 'gsi2', 'due'];

/** The code spans of each cell of docs/data-model.md's layout table, by the item's name. */
function documentedLayout(): Map<string, Record<Column, string[]>> {
  const text = readFileSync(new URL('../../../docs/data-model.md', import.meta.url), 'utf8');
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('| item (`item_type`)'));
  const rows = new Map<string, Record<Column, string[]>>();
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.slice(1, -1).split(' | ');
    const spans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    const row = Object.fromEntries(columns.map((column, i) => [column, spans(cells[i] ?? '')])) as Record<
      Column,
      string[]
    >;
    // "same" in gsi2 repeats gsi1's sort key.
    if (cells[4]?.includes('/ same')) row.gsi2.push(row.gsi1[1] as string);
    rows.set((cells[0] ?? '').trim().split(' (')[0] as string, row);
  }
  return rows;
}

const at = '2030-01-02T03:04:05.000Z';
const idempotencyHash = sha256('alice\nkey-1');
/** What each placeholder of the document stands for in the keys built below. */
const values: Record<string, string> = {
  '<id>': 'c1',
  '<composition id>': 'c1',
  '<operation id>': 'op1',
  '<event id>': 'ev1',
  '<check id>': 'ch1',
  '<build id>': 'b1',
  '<version id>': 'v1',
  '<created_at>': at,
  '<expires_at>': at,
  '<due_at>': at,
  '<at>': at,
  '<ran_at>': at,
  '<published_at>': at,
  '<project>': 'demo',
  '<name>': 'svc-a',
  '<component>': 'svc-a',
  '<repository>': 'org/svc-a',
  '<ref>': 'main',
  '<frontend>': 'web',
  '<revision>': 'r1',
  '<sha256(subject + "\\n" + key)>': idempotencyHash,
  '<record hash>': idempotencyHash,
  '<sha256(token)>': sha256('svc_secret'),
  '<first 32 hex of sha256(author)>': sha256('alice').slice(0, 32),
  '<token id>': 'tok-1',
  '<username>': 'alice',
  '<sha256(session)>': 'h1',
  '<sha256(code)>': 'h1',
  '<grant id>': 'sig-1',
  '<sha256(refresh token)>': 'h1',
  '<sha256(access token)>': 'h1',
  '<sha256(sign-in cookie)>': 'h1',
  '<first 32 hex of sha256(key)>': sha256('changes\nuser:alice').slice(0, 32),
  '<window start>': at,
  '<audit id>': 'au-1',
  '<preview id>': 'pr-1',
  '<commit>': 'abc1',
  '<delivery id>': 'd-1',
  '<received_at>': at,
  '<installation>': '42',
  '<user id>': 'usr-1',
  '<cluster>': 'local',
  '<namespace>': 'staging',
  '<first 32 hex of sha256(cluster + "\\n" + namespace)>': sha256('local\nstaging').slice(0, 32),
  '<session id>': 'ses-1',
  '<sha256(issuer + "\\n" + sub)>': sha256('https://id.example\nsub-1'),
  '<account>': 'acme',
};

const fill = (span: string) =>
  span.replace(/<[^>]+>/g, (placeholder) => {
    const value = values[placeholder];
    if (value === undefined) throw new Error(`no value for ${placeholder} in docs/data-model.md`);
    return value;
  });

type Entry = Record<string, string>;
const entry = (attributes: Entry, prefix: string) =>
  [attributes[`${prefix}pk`], attributes[`${prefix}sk`]].filter((v): v is string => v !== undefined);

function layout(types: string[], key: Keys.Key, indexes: Entry = {}): Record<Column, string[]> {
  return {
    item: types,
    pk: [key.pk],
    sk: [key.sk],
    gsi1: entry(indexes, 'gsi1'),
    gsi2: entry(indexes, 'gsi2'),
    due: entry(indexes, 'due'),
  };
}

const catalog = Keys.catalogVersion('demo', 'v1');
const built: Record<string, Record<Column, string[]>> = {
  composition: layout([Keys.ItemType.Composition], Keys.composition('c1'), {
    ...Keys.listedComposition({ id: 'c1', project: 'demo', created_at: at }),
    ...Keys.dueEntry(Keys.DueQueue.Expiry, at, 'c1'),
  }),
  operation: layout(
    [Keys.ItemType.Operation],
    Keys.operation('c1', 'op1'),
    Keys.dueEntry(Keys.DueQueue.Operations, at, 'op1'),
  ),
  'audit event': layout([Keys.ItemType.Event], Keys.event({ composition_id: 'c1', at, id: 'ev1' })),
  'idempotency record': layout(
    [Keys.ItemType.Idempotency],
    Keys.idempotencyRecord(Keys.idempotencyRecordId('alice', 'key-1')),
    Keys.dueEntry(Keys.DueQueue.Idempotency, at, idempotencyHash),
  ),
  'project pointer': layout(
    [Keys.ItemType.Project],
    Keys.projectPointer('svc-a'),
    Keys.listedProject('svc-a'),
  ),
  'catalog version item': {
    item: [Keys.ItemType.CatalogVersion, Keys.ItemType.CatalogComponent, Keys.ItemType.CatalogBaseline],
    pk: [catalog.partition],
    sk: [catalog.meta.sk, catalog.component('svc-a').sk, catalog.baseline('svc-a').sk],
    gsi1: [],
    gsi2: [],
    due: [],
  },
  'namespace claim': layout(
    [Keys.ItemType.NamespaceClaim],
    Keys.namespaceClaim('local', 'staging'),
    Keys.listedClaim('demo', 'local', 'staging'),
  ),
  'published build': layout(
    [Keys.ItemType.Build],
    Keys.build('b1'),
    Keys.listedBuild({ id: 'b1', project: 'demo', component: 'svc-a', published_at: at }),
  ),
  'machine token': layout([Keys.ItemType.Token], Keys.token('svc_secret'), Keys.listedToken('tok-1')),
  'machine token name': layout([Keys.ItemType.TokenName], Keys.tokenName('svc-a')),
  'verification check': layout(
    [Keys.ItemType.Check],
    Keys.check({ composition_id: 'c1', ran_at: at, id: 'ch1' }),
  ),
  'source ref': layout(
    [Keys.ItemType.SourceRef],
    Keys.sourceRef({
      project: 'demo',
      component: 'svc-a',
      repository: 'org/svc-a',
      ref: 'main',
      published_at: at,
      build_id: 'b1',
    }),
  ),
  'onboarding draft': layout([Keys.ItemType.Draft], Keys.draft('demo', 'alice')),
  'frontend binding': layout([Keys.ItemType.FrontendBinding], Keys.frontendBinding('demo', 'web', 'r1')),
  user: layout([Keys.ItemType.User], Keys.user('alice'), Keys.listedUser('alice')),
  'identity-provider subject': layout(
    [Keys.ItemType.OidcSubject],
    Keys.oidcSubject('https://id.example', 'sub-1'),
  ),
  session: layout([Keys.ItemType.Session], Keys.session('h1'), Keys.listedSignIn('usr-1', 'ses-1')),
  'authorization code': layout([Keys.ItemType.AuthorizationCode], Keys.authorizationCode('h1')),
  'sign-in grant': layout(
    [Keys.ItemType.SignInGrant],
    Keys.signInGrant('sig-1'),
    Keys.listedSignIn('usr-1', 'sig-1'),
  ),
  'refresh token': layout([Keys.ItemType.RefreshToken], Keys.refreshToken('h1')),
  'access token': layout([Keys.ItemType.AccessToken], Keys.accessToken('h1')),
  'pending sign-in': layout([Keys.ItemType.PendingSignIn], Keys.pendingSignIn('h1')),
  'rate window': layout([Keys.ItemType.RateWindow], Keys.rateWindow('changes\nuser:alice', at)),
  'project quota': layout([Keys.ItemType.ProjectQuota], Keys.projectQuota('demo')),
  'installation audit event': layout(
    [Keys.ItemType.AuditEvent],
    Keys.auditEvent('au-1'),
    Keys.listedAuditEvent({ id: 'au-1', at, project: 'demo' }),
  ),
  'preview policy': layout(
    [Keys.ItemType.PreviewPolicy],
    Keys.previewPolicy('demo', 'Org/svc-a'),
    Keys.listedPolicy({ project: 'demo', repository: 'org/svc-a' }),
  ),
  'forge preview': layout([Keys.ItemType.Preview], Keys.preview('pr-1'), {
    ...Keys.listedPreview({ id: 'pr-1', created_at: at }),
    ...Keys.waitingPreview({ id: 'pr-1', repository: 'org/SVC-a', head_sha: 'abc1' }),
  }),
  'preview pointer': layout([Keys.ItemType.PreviewPointer], Keys.previewPointer('org/svc-a', 'pr-1')),
  'forge delivery': layout([Keys.ItemType.ForgeDelivery], Keys.delivery('d-1'), {
    ...Keys.listedDelivery({ id: 'd-1', received_at: at }),
    ...Keys.dueEntry(Keys.DueQueue.Forge, at, 'd-1'),
  }),
  'forge health': {
    item: [Keys.ItemType.ForgeHealth, Keys.ItemType.ForgeRateBudget, Keys.ItemType.ForgeReconciliation],
    pk: [Keys.forgeHealth.pk],
    sk: [Keys.forgeHealth.sk, Keys.rateBudget('42').sk, Keys.reconciliation.sk],
    gsi1: [],
    gsi2: [],
    due: [],
  },
  'forge suspension': layout([Keys.ItemType.ForgeSuspension], Keys.suspension('Acme')),
};

describe('the table layout', () => {
  const documented = documentedLayout();

  it('documents every item type keys.ts builds, and nothing else', () => {
    expect([...documented.keys()]).toEqual(Object.keys(built));
    expect([...documented.values()].flatMap((row) => row.item).sort()).toEqual(
      Object.values(Keys.ItemType).sort(),
    );
  });

  it.each(Object.keys(built))('builds the keys docs/data-model.md gives the %s', (item) => {
    const row = documented.get(item);
    expect(row, `docs/data-model.md has no row "${item}"`).toBeDefined();
    const filled = Object.fromEntries(columns.map((column) => [column, row?.[column].map(fill)]));
    expect(built[item]).toEqual(filled);
  });

  it('bounds a due query after every entry due at that time, whatever its id', () => {
    const now = new Date(at);
    const entry = Keys.dueEntry(Keys.DueQueue.Operations, at, 'zz-99');
    expect(entry.duesk <= Keys.dueUntil(now)).toBe(true);
    expect(
      Keys.dueEntry(Keys.DueQueue.Operations, '2030-01-02T03:04:05.001Z', 'a').duesk > Keys.dueUntil(now),
    ).toBe(true);
  });
});
