/**
 * Test data: one record of every item type the entities write, with every optional attribute set,
 * built from the values docs/data-model.md's placeholders stand for (see `placeholders`).
 */
import {
  type Auth,
  type Builds,
  Catalog,
  type Checks,
  type Compositions,
  type Forge,
  type Operations,
  sha256,
} from '@svc/core';
import * as v from 'valibot';

export const at = '2030-01-02T03:04:05.000Z';
const later = '2030-01-03T03:04:05.000Z';

/** What each placeholder of docs/data-model.md stands for in the records below. */
export const placeholders: Record<string, string> = {
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
  '<sha256(subject + "\\n" + key)>': sha256('alice\nkey-1'),
  '<record hash>': sha256('alice\nkey-1'),
  '<sha256(token)>': sha256('svc_secret'),
  '<first 32 hex of sha256(author)>': sha256('alice').slice(0, 32),
  '<token id>': 'tok-1',
  '<username>': 'alice',
  '<sha256(session)>': 'h1',
  '<sha256(code)>': 'h1',
  '<grant id>': 'sig-1',
  '<sign-in id>': 'idp-1',
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
  '<change id>': 'ch-0123456789abcdef0123',
};

const user = { kind: 'user', subject: 'user:alice' } as const;

export const composition: Compositions.CompositionRecord = {
  id: 'c1',
  project: 'demo',
  baseline: 'staging',
  namespace: 'staging',
  cluster: 'local',
  name: 'feature',
  owner: user,
  generation: 2,
  observed_generation: 1,
  phase: 'updating',
  ttl_seconds: 3600,
  expires_at: at,
  created_at: at,
  updated_at: at,
  message_isolation: true,
  overrides: { 'svc-a': { image: null, build_id: 'b1' } },
  desired: {
    images: {
      'svc-a': {
        image: 'registry.example.com/svc-a@sha256:aa',
        source: 'build',
        build_id: 'b1',
        digest: 'sha256:aa',
      },
    },
    inherited: ['svc-b'],
    profile_revisions: { 'svc-a': 2 },
    catalog_version: 3,
    catalog_version_id: 'v1',
  },
  observed: {
    components: { 'svc-a': { image: 'registry.example.com/svc-a:1', ready: true, generation: 1 } },
    blockers: [{ code: 'crash_loop', message: 'crashes', component: 'svc-a' }],
    updated_at: at,
  },
  public_url: 'http://c1.preview.localhost:8082/',
  public_ready: true,
  latest_operation: { id: 'op1', kind: 'update', status: 'pending' },
  active_operation: 'op1',
  epoch: 2,
  message_subscriptions: [{ component: 'svc-a', topic: 'events', queue_url: null, ready: false }],
  destroyed_at: null,
  lock_version: 7,
};

export const operation: Operations.Operation = {
  id: 'op1',
  composition_id: 'c1',
  kind: 'update',
  status: 'pending',
  generation: 2,
  epoch: 2,
  steps: ['apply', 'await-rollout', 'verify', 'finish'],
  next_step: 1,
  due_at: at,
  lease_holder: 'chain-1',
  created_at: at,
  updated_at: at,
  error: null,
  requested_by: user,
  observations: { bad_since: { 'svc-a': { reason: 'CrashLoopBackOff', since: at } }, ready: 0 },
  lock_version: 4,
};

export const event: Compositions.CompositionEvent = {
  id: 'ev1',
  composition_id: 'c1',
  type: 'update_requested',
  at,
  actor: user,
  operation_id: 'op1',
  generation: 2,
  message: 'update requested',
  data: { overrides: ['svc-a'], nested: { list: [1, null, 'x'] } },
};

export const check: Checks.CheckRecord = {
  id: 'ch1',
  composition_id: 'c1',
  kind: 'frontend',
  generation: 2,
  status: 'passed',
  message: 'ok',
  ran_at: at,
  target: 'http://c1.preview.localhost:8082/',
  http_status: 200,
  coverage: { 'svc-a': 'verified' },
  fingerprint: { inputs: { 'image:svc-a': 'sha256:aa' }, hash: 'h' },
  frontend: { name: 'web', revision: 'r1', version: 2 },
};

export const componentEntry: Catalog.Revisioned<Catalog.ComponentProfile> = {
  spec: v.parse(Catalog.ComponentProfile, {
    name: 'svc-a',
    workload: { name: 'svc-a', container: 'app' },
    port: 8080,
    service: { name: 'svc-a', port: 80 },
  }),
  revision: 2,
  hash: 'ha',
};

export const baselineEntry: Catalog.Revisioned<Catalog.Baseline> = {
  spec: v.parse(Catalog.Baseline, {
    name: 'svc-a',
    namespace: 'staging',
    cluster: 'local',
    preview_domain: 'preview.localhost',
    entry_component: 'svc-a',
    components: { 'svc-a': { image: 'registry.example.com/svc-a:1' } },
  }),
  revision: 1,
  hash: 'hb',
};

export const catalogVersion: Catalog.ProjectVersion = {
  project: 'demo',
  version: 3,
  version_id: 'v1',
  default_baseline: 'staging',
  hash: 'catalog-hash',
  applied_at: at,
  components: { 'svc-a': componentEntry },
  baselines: { 'svc-a': baselineEntry },
};

export const namespaceClaim: Catalog.NamespaceClaim = {
  cluster: 'local',
  namespace: 'staging',
  project: 'demo',
  baseline: 'staging',
};

export const repositoryClaim = { repository: 'org/svc-a', project: 'demo', claimed_at: at };

export const build: Builds.Build = {
  id: 'b1',
  project: 'demo',
  component: 'svc-a',
  repository: 'org/svc-a',
  commit_sha: 'abc1',
  ref: 'main',
  image: 'registry.example.com/svc-a@sha256:aa',
  digest: 'sha256:aa',
  published_at: at,
  published_by: 'ci',
};

export const sourceRef: Builds.SourceRef = {
  project: 'demo',
  component: 'svc-a',
  repository: 'org/svc-a',
  ref: 'main',
  build_id: 'b1',
  commit_sha: 'abc1',
  published_at: at,
};

const grants: Auth.Grant[] = [
  { role: 'developer', project: 'demo', repository: null },
  { role: 'publisher', project: 'demo', repository: 'org/svc-a', components: ['svc-a'] },
];

export const token: Auth.MachineToken = {
  id: 'tok-1',
  name: 'svc-a',
  subject: 'token:svc-a',
  grants,
  created_at: at,
  created_by: 'user:alice',
  expires_at: later,
  revoked_at: null,
};

export const draft = {
  project: 'demo',
  author: 'alice',
  revision: 2,
  stage: 'review',
  configuration: { workloads: [{ name: 'svc-a' }] },
  selections: { repository: 'org/svc-a' },
  created_at: at,
  updated_at: at,
  expires_at: later,
};

export const frontendBinding = {
  project: 'demo',
  frontend: 'web',
  revision: 'r1',
  composition_id: 'c1',
  version: 2,
  published: { url: 'https://web.example.com/', published_at: at, published_by: 'ci' },
  bound_by: 'user:alice',
  created_at: at,
  updated_at: at,
  expires_at: later,
};

export const oidcSubject: Auth.OidcSubject = { issuer: 'https://id.example', sub: 'sub-1' };

export const person: Auth.User = {
  id: 'usr-1',
  username: 'alice',
  grants,
  password_hash: null,
  disabled: false,
  credentials_epoch: 3,
  oidc_subject: oidcSubject,
  created_at: at,
  updated_at: at,
};

const personRef = { username: 'alice', user_id: 'usr-1', credentials_epoch: 3 };

export const session: Auth.Session = {
  ...personRef,
  id: 'ses-1',
  claim_grants: grants,
  provider_sign_in: 'idp-1',
  created_at: at,
  idle_expires_at: at,
  expires_at: later,
  revoked_at: null,
};

export const authorizationCode: Auth.AuthorizationCode = {
  ...personRef,
  claim_grants: grants,
  provider_sign_in: 'idp-1',
  client_id: 'svc-cli',
  redirect_uri: 'http://127.0.0.1:5000/callback',
  code_challenge: 'challenge',
  expires_at: later,
};

export const signInGrant: Auth.SignInGrant = {
  ...personRef,
  id: 'sig-1',
  claim_grants: [],
  provider_sign_in: null,
  client_id: 'svc-cli',
  created_at: at,
  expires_at: later,
  revoked_at: at,
};

export const refreshToken = { grant_id: 'sig-1', expires_at: later };

/** As stored: its tokens sealed. */
export const providerSignIn = {
  id: 'idp-1',
  user_id: 'usr-1',
  sub: 'alice-at-the-provider',
  claim_grants: grants,
  tokens: 'v1.sealed',
  checked_at: at,
  leased_until: null,
  ended_at: null,
  created_at: at,
  expires_at: later,
  lock_version: 1,
};

export const accessToken: Auth.AccessToken = { grant_id: 'sig-1', username: 'alice', expires_at: later };

export const pendingSignIn: Auth.PendingSignIn = {
  state: 'state',
  nonce: 'nonce',
  code_verifier: 'verifier',
  return_to: '/console',
  expires_at: later,
};

export const auditEvent: Auth.AuditEvent = {
  id: 'au-1',
  at,
  action: 'token.issued',
  actor: { subject: 'user:alice', kind: 'user', credential: 'session' },
  project: 'demo',
  target: 'tok-1',
  data: { name: 'svc-a' },
};

export const previewPolicy: Forge.PreviewPolicy = {
  project: 'demo',
  repository: 'Org/svc-a',
  enabled: true,
  trigger_label: 'preview',
  baseline: 'staging',
  ttl: '8h',
  components: ['svc-a'],
  fork_pull_requests: false,
  build_selection: 'head_sha',
  group_by: 'none',
  feedback: 'comment',
  revision: 2,
  updated_at: at,
  updated_by: 'user:alice',
};

export const preview: Forge.PreviewRecord = {
  id: 'pr-1',
  project: 'demo',
  repository: 'org/SVC-a',
  number: 7,
  state: 'waiting_for_build',
  head_sha: 'abc1',
  head_ref: 'feature/x',
  fork: true,
  builds: { 'svc-a': 'b1' },
  deployed_sha: 'abc0',
  composition_id: 'c1',
  change_id: null,
  url: 'http://c1.preview.localhost:8082/',
  expires_at: later,
  last_error: { code: 'build_missing', message: 'no build yet' },
  suppressed: false,
  restart_pending: true,
  feedback: {
    comment_id: 11,
    comment_fingerprint: 'fp-comment',
    check_run_id: 12,
    check_run_sha: 'abc0',
    check_run_fingerprint: 'fp-run',
    check_run_open: true,
    deployment_id: 13,
    deployment_sha: 'abc0',
    deployment_fingerprint: 'fp-deployment',
  },
  poll_at: at,
  created_at: at,
  updated_at: at,
  lock_version: 3,
};

export const delivery: Forge.Delivery = {
  id: 'd-1',
  event: 'installation_repositories',
  action: 'added',
  repository: 'Org/svc-a',
  number: 7,
  repositories: ['org/SVC-a', 'Org/other'],
  installation: 42,
  account: 'Org',
  state: 'received',
  received_at: at,
  due_at: at,
  finished_at: null,
  attempts: 1,
  error: null,
  outcome: [{ project: 'demo', preview_id: 'pr-1', state: 'ready', unwanted: null }],
};

export const rateBudget: Forge.RateBudget = {
  installation: '42',
  limit: 5000,
  remaining: 4990,
  reset_at: later,
  throttled_until: null,
  observed_at: at,
};

export const reconciliation: Forge.ReconciliationRun = {
  started_at: at,
  finished_at: later,
  policies: 2,
  drift_found: 1,
  drift_fixed: 1,
  redelivered: 0,
  error: null,
};

export const suspension: Forge.InstallationSuspension = {
  account: 'Acme',
  installation: 42,
  suspended_at: at,
};

export const change: Forge.ChangeRecord = {
  id: 'ch-0123456789abcdef0123',
  account: 'org',
  key: { kind: 'branch', name: 'feature-x' },
  project: 'demo',
  members: [
    { repository: 'Org/svc-a', number: 7, components: ['svc-a'] },
    { repository: 'Org/web', number: 3, components: ['web'] },
  ],
  state: 'ready',
  composition_id: 'c1',
  composed: { 'svc-a': 'b1', web: 'b2' },
  url: 'http://c1.preview.localhost:8082/',
  expires_at: later,
  refusal: null,
  suppressed: false,
  restart_pending: false,
  poll_at: at,
  created_at: at,
  updated_at: at,
  lock_version: 2,
};
