// One interface for driving the forge, shared by the programmatic API and the /_control routes.

import type { RateLimitFault, RateLimits, ServerErrorFault } from './rate-limit.ts';
import type {
  ControlResult,
  OpenPullRequestInput,
  PullRequestSummary,
  PullRequestTarget,
  Simulator,
} from './simulator.ts';
import type { PullRecord } from './state.ts';
import type { ForgeStore } from './store.ts';
import type { WebhookSender } from './webhooks.ts';

interface Faults {
  /** Webhook deliveries still to be recorded as failed ("failed to connect to host") without being sent. */
  webhookFailures: number;
  rateLimit: Required<RateLimitFault> | null;
  serverErrors: Required<ServerErrorFault> | null;
}

interface FaultsInput {
  webhookFailures?: number;
  rateLimit?: RateLimitFault;
  serverErrors?: ServerErrorFault;
}

/** What the app wrote on a pull request: its comments and the check runs of its head commit. */
interface PullRequestState extends PullRequestSummary {
  comments: { id: number; author: string; body: string; createdAt: string; updatedAt: string }[];
  checkRuns: {
    id: number;
    name: string;
    headSha: string;
    status: string;
    conclusion: string | null;
    title: string | null;
    summary: string | null;
    detailsUrl: string | null;
  }[];
}

interface ForgeStateSummary {
  app: { id: number; slug: string };
  webhookUrl: string | null;
  webhookContentType: string;
  installations: { id: number; account: string; repositories: string[]; suspendedAt: string | null }[];
  pullRequests: PullRequestState[];
  deliveries: number;
  faults: Faults;
}

export interface ForgeControl {
  /** Opens a pull request: `opened`, then `labeled` per label; fires onPush. */
  open(input: OpenPullRequestInput): Promise<ControlResult>;
  /** Pushes a new head commit (random SHA unless given): `synchronize`; fires onPush. */
  push(target: PullRequestTarget & { sha?: string }): Promise<ControlResult>;
  /** `labeled`; nothing when the label is already there. */
  label(target: PullRequestTarget & { label: string }): Promise<ControlResult>;
  /** `unlabeled`; nothing when the label is not there. */
  unlabel(target: PullRequestTarget & { label: string }): Promise<ControlResult>;
  /** `closed`, with `merged: true` when merged. */
  close(target: PullRequestTarget & { merged?: boolean }): Promise<ControlResult>;
  /** `reopened`; refused for merged pull requests, as on GitHub. */
  reopen(target: PullRequestTarget): Promise<ControlResult>;
  /** `edited` with `changes.base`. */
  changeBase(target: PullRequestTarget & { base: string }): Promise<ControlResult>;
  /** `installation.created` or `installation_repositories.added`. */
  install(input: { repository: string; sender?: string }): Promise<ControlResult>;
  /** `owner/name`: `installation_repositories.removed`; `owner`: `installation.deleted`. */
  uninstall(input: { target: string; sender?: string }): Promise<ControlResult>;
  /** `installation.suspend`: tokens refused, no webhooks for its repositories, until unsuspended. */
  suspend(input: { account: string; sender?: string }): Promise<ControlResult>;
  /** `installation.unsuspend`. */
  unsuspend(input: { account: string; sender?: string }): Promise<ControlResult>;
  /** Sets the given faults (others unchanged); a count of 0 clears one. */
  setFaults(input: FaultsInput): Faults;
  faults(): Faults;
  state(): ForgeStateSummary;
}

function pullRequestState(store: ForgeStore, simulator: Simulator, pull: PullRecord): PullRequestState {
  const comments = store.state.comments.filter(
    (comment) => comment.repositoryId === pull.repositoryId && comment.issueNumber === pull.number,
  );
  const runs = store.state.checkRuns.filter(
    (run) => run.repositoryId === pull.repositoryId && run.headSha === pull.headSha,
  );
  return {
    ...simulator.summary(pull),
    comments: comments.map(({ id, author, body, createdAt, updatedAt }) => ({
      id,
      author,
      body,
      createdAt,
      updatedAt,
    })),
    checkRuns: runs.map((run) => ({
      id: run.id,
      name: run.name,
      headSha: run.headSha,
      status: run.status,
      conclusion: run.conclusion,
      title: run.output.title,
      summary: run.output.summary,
      detailsUrl: run.detailsUrl,
    })),
  };
}

export function createForgeControl(deps: {
  store: ForgeStore;
  simulator: Simulator;
  webhooks: WebhookSender;
  rateLimits: RateLimits;
}): ForgeControl {
  const { store, simulator, webhooks, rateLimits } = deps;
  const faults = (): Faults => ({ webhookFailures: webhooks.failNext, ...rateLimits.faults() });
  return {
    open: (input) => simulator.open(input),
    push: (target) => simulator.push(target),
    label: (target) => simulator.label(target),
    unlabel: (target) => simulator.unlabel(target),
    close: (target) => simulator.close(target),
    reopen: (target) => simulator.reopen(target),
    changeBase: (target) => simulator.changeBase(target),
    install: (input) => simulator.install(input),
    uninstall: (input) => simulator.uninstall(input),
    suspend: (input) => simulator.setSuspended({ ...input, suspended: true }),
    unsuspend: (input) => simulator.setSuspended({ ...input, suspended: false }),
    setFaults(input) {
      if (input.webhookFailures !== undefined) webhooks.failNext = input.webhookFailures;
      if (input.rateLimit) rateLimits.setRateLimitFault(input.rateLimit);
      if (input.serverErrors) rateLimits.setServerErrorFault(input.serverErrors);
      return faults();
    },
    faults,
    state: () => ({
      app: { id: store.state.app.id, slug: store.state.app.slug },
      webhookUrl: webhooks.url,
      webhookContentType: webhooks.contentType,
      installations: store.state.installations.map((installation) => ({
        id: installation.id,
        account: installation.account,
        repositories: installation.repositoryIds.map((id) => {
          const repository = store.repositoryById(id);
          return `${repository.owner}/${repository.name}`;
        }),
        suspendedAt: installation.suspendedAt ?? null,
      })),
      pullRequests: store.state.pulls.map((pull) => pullRequestState(store, simulator, pull)),
      deliveries: store.state.deliveries.length,
      faults: faults(),
    }),
  };
}
