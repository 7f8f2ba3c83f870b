/**
 * Pull-request previews: repository policies, the per-pull-request preview record that webhook
 * processing and the reconciliation sweep both move, and the deliveries stored before they are
 * acknowledged (their wire bodies and views are schema.ts). Text that comes from the forge
 * (titles, branch names) is data only: it is never put into anything executable, and feedback
 * written back to the forge does not repeat it.
 */
import { contentHash } from '../canonical.ts';

/** Whether pull requests of one head branch across the project's repositories share one preview (a change). */
export const GroupBy = { None: 'none', Branch: 'branch' } as const;
export type GroupBy = (typeof GroupBy)[keyof typeof GroupBy];

/**
 * Where a preview's state goes besides its check run: the one comment (the default), a GitHub
 * Deployment (no e-mail; the pull request's timeline and the repository's environments), or both.
 */
export const FeedbackMode = { Comment: 'comment', Deployment: 'deployment', Both: 'both' } as const;
export type FeedbackMode = (typeof FeedbackMode)[keyof typeof FeedbackMode];

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
  group_by: GroupBy;
  feedback: FeedbackMode;
  revision: number;
  updated_at: string;
  updated_by: string;
}

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
  /** The change the pull request belongs to cannot be composed (`last_error` says why). */
  Refused: 'refused',
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
  /** The deployment of the head commit; a new head commit gets a deployment of its own. */
  deployment_id: number | null;
  deployment_sha: string | null;
  /** What its newest status says (its hash). */
  deployment_fingerprint: string | null;
}

/** A preview's feedback before anything was written to its pull request. */
export const noFeedback: Feedback = {
  comment_id: null,
  comment_fingerprint: null,
  check_run_id: null,
  check_run_sha: null,
  check_run_fingerprint: null,
  check_run_open: false,
  deployment_id: null,
  deployment_sha: null,
  deployment_fingerprint: null,
};

export interface PreviewRecord {
  id: string;
  project: string;
  repository: string;
  number: number;
  state: PreviewState;
  /** The pull request's head commit when last observed. */
  head_sha: string;
  /** Its head branch ('' when unknown: previews saved before it was kept). */
  head_ref: string;
  /** Whether the head lives in a fork. */
  fork: boolean;
  /** The builds the composition runs (component → build id), for the commit in `deployed_sha`. */
  builds: Record<string, string>;
  deployed_sha: string | null;
  composition_id: string | null;
  /** The change whose composition it shares (change-model.ts); null: a preview of its own. */
  change_id: string | null;
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
  /** The head branch's name: text from the forge, a grouping key only, never markup. */
  head_ref: string;
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
