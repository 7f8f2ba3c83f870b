/** A forge refused a call for its rate limit: the work waits `retryAfterSeconds` instead of stalling. */

import { grantsOfRole, Role } from '../auth/identity.ts';
import type { AuditStore } from '../auth/ports.ts';
import type { CompositionDeps } from '../compositions/ports.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { ChangeRecord } from './change-model.ts';
import type {
  Delivery,
  InstallationSuspension,
  PreviewPolicy,
  PreviewRecord,
  PullRequest,
  RateBudget,
  ReconciliationRun,
  WebhookHealth,
} from './model.ts';
import type { InstallationPage, RepositoryPage } from './schema.ts';

export class ForgeRateLimitedError extends Error {
  override name = 'ForgeRateLimitedError';
  readonly installation: string;
  readonly retryAfterSeconds: number;
  constructor(installation: string, retryAfterSeconds: number, options?: { cause?: unknown }) {
    super(`the forge rate-limited installation ${installation} for ${retryAfterSeconds} s`, options);
    this.installation = installation;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A convergence that lost every race for its record (another job kept writing it): not a failure
 * of the forge or of the data, so the job is tried again a moment later rather than after the
 * queue's visibility timeout.
 */
export class ForgeContendedError extends Error {
  override name = 'ForgeContendedError';
  constructor(what: string) {
    super(`${what} kept changing under the worker`);
  }
}

export interface CheckRunInput {
  head_sha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | null;
  title: string;
  summary: string;
  details_url: string | null;
}

/** A GitHub Deployment of a pull request's head commit, in a transient environment of its branch. */
export interface DeploymentInput {
  sha: string;
  environment: string;
  description: string;
}

/** What a deployment's newest status says; `environment_url` only once the preview answers there. */
export interface DeploymentStatusInput {
  state: 'queued' | 'in_progress' | 'success' | 'failure' | 'error' | 'inactive';
  description: string;
  environment_url: string | null;
  /** The console's page of the preview's composition (or of the pull-request previews). */
  log_url: string | null;
}

/** A failed attempt of a delivery the forge recorded (its hook-deliveries API). */
export interface ForgeDeliveryAttempt {
  id: number;
  guid: string;
  delivered_at: string;
  ok: boolean;
}

/**
 * The forge as previews need it (GitHub through packages/github; another forge could follow).
 * Every call may throw `ForgeRateLimitedError`.
 */
export interface ForgePort {
  /** The pull request now; null when it does not exist or the app cannot see it (uninstalled). */
  getPullRequest(repository: string, number: number): Promise<PullRequest | null>;
  /** Open pull requests carrying `label` (conditional requests spare the rate limit). */
  listOpenPullRequests(repository: string, label: string): Promise<PullRequest[]>;
  /** Creates the comment, or edits it in place (`commentId`, else the one carrying `marker`); answers its id. */
  upsertComment(
    repository: string,
    number: number,
    comment: { id: number | null; marker: string; body: string },
  ): Promise<number>;
  /** Creates the check run on `head_sha`, or updates run `id`; answers its id. */
  upsertCheckRun(repository: string, id: number | null, run: CheckRunInput): Promise<number>;
  /** Creates a deployment (no status yet); answers its id. */
  createDeployment(repository: string, deployment: DeploymentInput): Promise<number>;
  createDeploymentStatus(
    repository: string,
    deploymentId: number,
    status: DeploymentStatusInput,
  ): Promise<void>;
  listInstallations(page: number): Promise<InstallationPage>;
  /** One installation as the forge says it is now (suspended or not); null when it does not exist. */
  getInstallation(id: number): Promise<{ id: number; account: string; suspended_at: string | null } | null>;
  listRepositories(installationId: number, page: number): Promise<RepositoryPage>;
  /** Whether the app's credentials work (a JWT call), never the credentials themselves. */
  checkApp(): Promise<{
    app_id: string | null;
    private_key: 'valid' | 'invalid' | 'missing';
    error: string | null;
  }>;
  /** Delivery attempts since `since`, newest first. */
  deliveries(since: Date): Promise<ForgeDeliveryAttempt[]>;
  redeliver(attemptId: number): Promise<void>;
  /** An installation event changed which repositories the app reaches (or whether it may): forget what was cached of them. */
  forgetRepositories(repositories: readonly string[]): void;
  /** The rate-limit budgets this process observed, per installation. */
  budgets(): RateBudget[];
}

/** A policy save: written, or refused for a stale revision (`owner` null) or another project's repository. */
export type PolicyWrite = { saved: true } | { saved: false; owner: string | null };

export interface ForgeStore {
  getPolicy(project: string, repository: string): Promise<PreviewPolicy | null>;
  /**
   * Writes the policy if its revision is still `expected_revision` (0: it must not exist), and in
   * the same write holds the repository for the policy's project: taken if no project holds it,
   * refused (naming the holder) if another does.
   */
  putPolicy(policy: PreviewPolicy, expected_revision: number): Promise<PolicyWrite>;
  /** Deletes the project's policy, giving the repository back if the project held it; false when there was none. */
  deletePolicy(project: string, repository: string): Promise<boolean>;
  /** The project the repository belongs to; null when none holds it (no policy, or one saved before repositories were held). */
  repositoryOwner(repository: string): Promise<string | null>;
  listPolicies(page: PageRequest): Promise<Page<PreviewPolicy>>;
  /** Every policy (any project) of a repository. */
  policiesOf(repository: string): Promise<PreviewPolicy[]>;

  getPreview(id: string): Promise<PreviewRecord | null>;
  /** Writes the record if its `lock_version` is still `expected` (0: must not exist). */
  putPreview(record: PreviewRecord, expected: number): Promise<boolean>;
  listPreviews(filter: { project: string | null }, page: PageRequest): Promise<Page<PreviewRecord>>;
  /** Previews of a repository that still hold or wait for something (not stopped). */
  activePreviewsOf(repository: string): Promise<PreviewRecord[]>;
  /** Previews waiting for a build of this commit (an index query, not a scan). */
  waitingFor(repository: string, commitSha: string): Promise<PreviewRecord[]>;

  getChange(id: string): Promise<ChangeRecord | null>;
  /** Writes the change if its `lock_version` is still `expected` (0: must not exist). */
  putChange(record: ChangeRecord, expected: number): Promise<boolean>;

  /** Stores a new delivery; false when one with its id exists. */
  putDelivery(delivery: Delivery): Promise<boolean>;
  getDelivery(id: string): Promise<Delivery | null>;
  /** Replaces the delivery; the due entry follows `due_at`. */
  updateDelivery(delivery: Delivery): Promise<void>;
  /** Unfinished deliveries whose `due_at` passed, oldest first. */
  dueDeliveries(now: Date, limit: number): Promise<Delivery[]>;
  /** Unfinished deliveries: how many (up to `limit`) and the oldest. */
  unprocessed(limit: number): Promise<{ count: number; oldest: string | null }>;
  /**
   * Stored deliveries, newest first; `repositories` (lower-case `owner/name`): only those concerning
   * one of them (a pull request's repository, or one an installation event names; at most 100);
   * null: all.
   */
  listDeliveries(
    filter: { repositories: readonly string[] | null },
    page: PageRequest,
  ): Promise<Page<Delivery>>;

  /** The suspension of the installation on `account` (case-insensitive); null when not suspended. */
  getSuspension(account: string): Promise<InstallationSuspension | null>;
  suspensions(): Promise<InstallationSuspension[]>;
  putSuspension(suspension: InstallationSuspension): Promise<void>;
  deleteSuspension(account: string): Promise<void>;

  webhookHealth(): Promise<WebhookHealth>;
  noteReceived(at: string): Promise<void>;
  noteFailure(at: string): Promise<void>;
  putBudget(budget: RateBudget): Promise<void>;
  budgets(): Promise<RateBudget[]>;
  putReconciliation(run: ReconciliationRun): Promise<void>;
  lastReconciliation(): Promise<ReconciliationRun | null>;
}

export interface ForgeSettings {
  /** Seconds between looks at a composition whose operation is under way. */
  pollSeconds: number;
  /** Seconds after which a stored delivery still unfinished is dispatched again by the sweep. */
  dispatchGraceSeconds: number;
  /** How long the webhook waits for the queue before answering anyway (the sweep dispatches later). */
  enqueueTimeoutMs: number;
  /** Receives after which a delivery that keeps failing is recorded as failed. */
  maxAttempts: number;
  /** The service's public origin (`AUTH_SETTINGS.public_origin`): a deployment's `log_url` is its console; null, none. */
  consoleOrigin: string | null;
}

export const defaultForgeSettings: ForgeSettings = {
  pollSeconds: 5,
  dispatchGraceSeconds: 30,
  enqueueTimeoutMs: 800,
  maxAttempts: 5,
  consoleOrigin: null,
};

/** What the forge use cases need: the composition use cases' dependencies, the forge and its store. */
export interface ForgeDeps extends CompositionDeps {
  /** Policy changes are audited. */
  audit: AuditStore;
  forge: ForgePort | null;
  forgeStore: ForgeStore;
  forgeSettings: ForgeSettings;
}

/** Pull-request automation acts as a system caller of kind `forge`, with admin grants everywhere. */
export function forgeCaller(subject: string) {
  return { actor: { kind: 'forge' as const, subject }, grants: grantsOfRole(Role.Admin) };
}
