/**
 * Pull-request previews: repository policies, the per-pull-request preview record that webhook
 * processing and the reconciliation sweep both move, and the deliveries stored before they are
 * acknowledged. Text that comes from the forge (titles, branch names) is data only: it is never
 * put into anything executable, and feedback written back to the forge does not repeat it.
 */
import * as v from 'valibot';
import { contentHash } from '../canonical.ts';
import { ResourceName } from '../names.ts';
import { pageSchema } from '../paging.ts';

/** `owner/name`, as the forge spells it (case kept; compared case-insensitively by the forge). */
export const RepositoryName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'repository must be owner/name'),
);

const Duration = v.pipe(v.string(), v.regex(/^\d+[smhd]$/, 'a duration such as 30m, 4h'));

/** PUT body of a repository's preview policy. */
export const PreviewPolicyBody = v.strictObject({
  enabled: v.boolean(),
  /** The label that asks for a preview. */
  trigger_label: v.pipe(v.string(), v.minLength(1), v.maxLength(50)),
  baseline: ResourceName,
  ttl: v.optional(Duration, '8h'),
  /** The component(s) this repository builds; each is overridden by the build of the head commit. */
  components: v.pipe(v.array(ResourceName), v.minLength(1), v.maxLength(3)),
  /** Previews for pull requests from forks; off by default, and never with secret material. */
  fork_pull_requests: v.optional(v.boolean(), false),
  /** How builds are chosen: only the build CI published for the pull request's head commit. */
  build_selection: v.optional(v.literal('head_sha'), 'head_sha'),
  /** Optimistic concurrency: the revision read (0 creates). Omitted: overwrite. */
  expected_revision: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type PreviewPolicyBody = v.InferOutput<typeof PreviewPolicyBody>;

export interface PreviewPolicy {
  project: string;
  repository: string;
  enabled: boolean;
  trigger_label: string;
  baseline: string;
  ttl: string;
  components: string[];
  fork_pull_requests: boolean;
  build_selection: 'head_sha';
  revision: number;
  updated_at: string;
  updated_by: string;
}

export const PreviewPolicyView = v.object({
  project: v.string(),
  repository: v.string(),
  enabled: v.boolean(),
  trigger_label: v.string(),
  baseline: v.string(),
  ttl: v.string(),
  components: v.array(v.string()),
  fork_pull_requests: v.boolean(),
  build_selection: v.literal('head_sha'),
  revision: v.number(),
  updated_at: v.string(),
  updated_by: v.string(),
});
export const PreviewPolicyList = pageSchema(PreviewPolicyView);

/** Lifecycle of a preview (docs/forge.md draws it). */
export const PreviewState = {
  /** The head commit's build is not published yet; the preview proceeds when it is. */
  WaitingForBuild: 'waiting_for_build',
  /** A composition is being created or updated to the head commit's build. */
  Deploying: 'deploying',
  Ready: 'ready',
  /** The composition failed; `last_error` and the diagnosis say why. */
  Failed: 'failed',
  /** Cleanup requested (unlabelled, closed, stopped, policy disabled); the composition is being destroyed. */
  Stopping: 'stopping',
  /** Nothing runs; a label, a reopen or a restart starts it again (a user stop needs a restart). */
  Stopped: 'stopped',
  /** A restart: the old composition is being destroyed before a fresh one is created. */
  Restarting: 'restarting',
  /** The composition reached its TTL; a push or a restart brings it back. */
  Expired: 'expired',
} as const;
export type PreviewState = (typeof PreviewState)[keyof typeof PreviewState];

interface PreviewError {
  code: string;
  message: string;
}

/**
 * What was last written back to the pull request, per channel, so unchanged feedback costs no API
 * call. An id of 0 is a claim: that comment or check run is being created by a convergence.
 */
export interface Feedback {
  comment_id: number | null;
  /** What the comment says (its hash); null: never written, or written before channels had their own. */
  comment_fingerprint: string | null;
  check_run_id: number | null;
  /** The commit the check run is on: a new head commit gets a run of its own. */
  check_run_sha: string | null;
  check_run_fingerprint: string | null;
  /**
   * Whether that run is still open (queued or in progress). GitHub keeps a completed run's status
   * and conclusion as they are, so any later change on the commit is a new run; false when unknown.
   */
  check_run_open: boolean;
}

/** A preview's feedback before anything was written to its pull request. */
export const noFeedback: Feedback = {
  comment_id: null,
  comment_fingerprint: null,
  check_run_id: null,
  check_run_sha: null,
  check_run_fingerprint: null,
  check_run_open: false,
};

export interface PreviewRecord {
  id: string;
  project: string;
  repository: string;
  number: number;
  state: PreviewState;
  /** The pull request's head commit when last observed. */
  head_sha: string;
  /** Whether the head lives in a fork. */
  fork: boolean;
  /** The builds the composition runs (component → build id), for the commit in `deployed_sha`. */
  builds: Record<string, string>;
  deployed_sha: string | null;
  composition_id: string | null;
  url: string | null;
  expires_at: string | null;
  last_error: PreviewError | null;
  /** A user stop: automation leaves the preview alone until a restart. */
  suppressed: boolean;
  /** A restart waits for the old composition to be destroyed before creating a fresh one. */
  restart_pending: boolean;
  feedback: Feedback;
  /** When the pending look at a composition in progress is due; one chain of polls per preview. */
  poll_at: string | null;
  created_at: string;
  updated_at: string;
  lock_version: number;
}

export const PreviewView = v.object({
  id: v.string(),
  project: v.string(),
  repository: v.string(),
  pull_request: v.object({ number: v.number(), head_sha: v.string(), fork: v.boolean() }),
  state: v.enum(PreviewState),
  automation: v.picklist(['active', 'suppressed']),
  builds: v.record(v.string(), v.string()),
  deployed_sha: v.nullable(v.string()),
  composition_id: v.nullable(v.string()),
  url: v.nullable(v.string()),
  expires_at: v.nullable(v.string()),
  last_error: v.nullable(v.object({ code: v.string(), message: v.string() })),
  created_at: v.string(),
  updated_at: v.string(),
});
export type PreviewView = v.InferOutput<typeof PreviewView>;
export const PreviewList = pageSchema(PreviewView);

export function previewView(record: PreviewRecord): PreviewView {
  return {
    id: record.id,
    project: record.project,
    repository: record.repository,
    pull_request: { number: record.number, head_sha: record.head_sha, fork: record.fork },
    state: record.state,
    automation: record.suppressed ? 'suppressed' : 'active',
    builds: record.builds,
    deployed_sha: record.deployed_sha,
    composition_id: record.composition_id,
    url: record.url,
    expires_at: record.expires_at,
    last_error: record.last_error,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** One preview per project and pull request: the id is derived, so two workers can never make two. */
export function previewId(project: string, repository: string, number: number): string {
  return `pr-${contentHash([project, repository.toLowerCase(), number]).slice(0, 20)}`;
}

/** The account (`owner`) of `owner/name`: the one installation of the app there holds the repository. */
export const accountOf = (repository: string) => repository.slice(0, repository.indexOf('/'));

/** The composition owner subject of a pull request's preview. */
export const ownerSubject = (repository: string, number: number) => `${repository}#${number}`;

/** A pull request as the forge says it is now. */
export interface PullRequest {
  repository: string;
  number: number;
  open: boolean;
  labels: string[];
  head_sha: string;
  fork: boolean;
}

export const DeliveryState = {
  /** Stored; its processing job may or may not have been sent (the sweep makes sure). */
  Received: 'received',
  /** Waiting out a rate limit before it is processed again. */
  Deferred: 'deferred',
  Processed: 'processed',
  /** An event (or action) previews do not act on. */
  Ignored: 'ignored',
  /** Processing gave up; the reconciliation sweep converges what it would have. */
  Failed: 'failed',
} as const;
export type DeliveryState = (typeof DeliveryState)[keyof typeof DeliveryState];

export const finishedDelivery = (state: DeliveryState) =>
  state === DeliveryState.Processed || state === DeliveryState.Ignored || state === DeliveryState.Failed;

/** A stored delivery: what processing needs from the payload, never the payload itself. */
export interface Delivery {
  id: string;
  event: string;
  action: string | null;
  /** The pull requests it concerns (`pull_request`), or the repositories (installation events). */
  repository: string | null;
  number: number | null;
  repositories: string[];
  /** The installation it came from, and its account (installation events: whose previews it concerns). */
  installation: number | null;
  account: string | null;
  state: DeliveryState;
  received_at: string;
  /** When the sweep should dispatch it if it is still unfinished. */
  due_at: string | null;
  finished_at: string | null;
  attempts: number;
  error: string | null;
  /** What processing a pull-request delivery decided, per project whose policy names the repository. */
  outcome: DeliveryOutcome[];
}

/** One project's convergence of the pull request a delivery named. */
export interface DeliveryOutcome {
  project: string;
  /** null: no preview record (a pull request that never asked for one leaves none). */
  preview_id: string | null;
  state: PreviewState | null;
  /** Why the pull request should have no preview (`label_missing`, `policy_disabled`…); null when it should. */
  unwanted: string | null;
}

const nullableText = v.nullable(v.string());

/** GET /v1/forge/deliveries: one stored delivery, what processing made of it, never its payload. */
export const DeliveryView = v.object({
  id: v.string(),
  event: v.string(),
  action: nullableText,
  /** `owner/name` of a pull-request event; null for installation events. */
  repository: nullableText,
  number: v.nullable(v.number()),
  /** The repositories an installation event names (those the caller may see). */
  repositories: v.array(v.string()),
  /** The account of the installation the delivery came from, for installation events. */
  account: nullableText,
  state: v.enum(DeliveryState),
  attempts: v.number(),
  /** Why processing failed (or waits for a rate limit); null otherwise. */
  error: nullableText,
  received_at: v.string(),
  /** When the dispatch sweep sends it again if it is still unfinished. */
  due_at: nullableText,
  finished_at: nullableText,
  /**
   * For a processed pull-request delivery, per project whose policy names the repository: the
   * preview, its state and why it is not wanted (`label_missing`, `policy_disabled`…). Empty when
   * no policy names the repository, and for other events.
   */
  outcome: v.array(
    v.object({
      project: v.string(),
      preview_id: nullableText,
      state: v.nullable(v.enum(PreviewState)),
      unwanted: nullableText,
    }),
  ),
});
export type DeliveryView = v.InferOutput<typeof DeliveryView>;
export const DeliveryList = pageSchema(DeliveryView);

/** An installation the forge reports suspended: its repositories get no preview until it is unsuspended. */
export interface InstallationSuspension {
  /** The installation's account (`owner` of its repositories), as the forge spells it. */
  account: string;
  installation: number;
  suspended_at: string;
}

/** Per installation, from the forge's response headers. */
export interface RateBudget {
  installation: string;
  limit: number | null;
  remaining: number | null;
  reset_at: string | null;
  /** Set while work is deferred by a rate limit. */
  throttled_until: string | null;
  observed_at: string;
}

export interface ReconciliationRun {
  started_at: string;
  finished_at: string;
  policies: number;
  drift_found: number;
  drift_fixed: number;
  redelivered: number;
  error: string | null;
}

/** Health counters kept beside the deliveries. */
export interface WebhookHealth {
  last_received_at: string | null;
  processing_failures: number;
  last_failure_at: string | null;
}

const nullableTime = v.nullable(v.string());

export const ForgeStatusView = v.object({
  app: v.object({
    configured: v.boolean(),
    app_id: v.nullable(v.string()),
    private_key: v.picklist(['valid', 'invalid', 'missing', 'unchecked']),
    webhook_secret: v.picklist(['present', 'missing']),
    previous_webhook_secret: v.picklist(['present', 'absent']),
    error: v.nullable(v.string()),
  }),
  webhooks: v.object({
    last_received_at: nullableTime,
    processing_failures: v.number(),
    last_failure_at: nullableTime,
    unprocessed: v.number(),
    oldest_unprocessed_at: nullableTime,
    forge_failed_deliveries: v.nullable(v.number()),
  }),
  reconciliation: v.nullable(
    v.object({
      started_at: v.string(),
      finished_at: v.string(),
      policies: v.number(),
      drift_found: v.number(),
      drift_fixed: v.number(),
      redelivered: v.number(),
      error: v.nullable(v.string()),
    }),
  ),
  rate_limits: v.array(
    v.object({
      installation: v.string(),
      limit: v.nullable(v.number()),
      remaining: v.nullable(v.number()),
      reset_at: nullableTime,
      throttled_until: nullableTime,
      observed_at: v.string(),
    }),
  ),
});
export type ForgeStatusView = v.InferOutput<typeof ForgeStatusView>;

const InstallationView = v.object({
  id: v.number(),
  account: v.string(),
  repository_selection: v.string(),
  created_at: v.nullable(v.string()),
  /** Set while the installation is suspended: its previews are stopped and none start. */
  suspended_at: v.nullable(v.string()),
});
const RepositoryView = v.object({
  id: v.number(),
  full_name: v.string(),
  private: v.boolean(),
  default_branch: v.nullable(v.string()),
});
export const InstallationPage = v.object({
  items: v.array(InstallationView),
  page: v.number(),
  next_page: v.nullable(v.number()),
});
export const RepositoryPage = v.object({
  items: v.array(RepositoryView),
  page: v.number(),
  next_page: v.nullable(v.number()),
});
export type InstallationPage = v.InferOutput<typeof InstallationPage>;
export type RepositoryPage = v.InferOutput<typeof RepositoryPage>;
