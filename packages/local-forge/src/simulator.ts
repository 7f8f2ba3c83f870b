// What people do on GitHub, reduced to the verbs previews care about: each changes the state as
// GitHub would and sends the webhooks GitHub would, in GitHub's order, to the app's webhook URL.
// Webhooks go out only for repositories the app is installed on, as on GitHub.

import type { AppAuth } from './auth.ts';
import { ControlError } from './errors.ts';
import type * as GitHub from './github-types.ts';
import type { Renderer } from './render.ts';
import { AccountType, type PullRecord, type RepositoryRecord, randomSha, timestamp } from './state.ts';
import type { ForgeStore } from './store.ts';
import { type DeliverySummary, summarise, type WebhookEvent, type WebhookSender } from './webhooks.ts';

export interface OpenPullRequestInput {
  /** `owner/name`; created on the fly when unknown. */
  repository: string;
  /** Head branch; created from the base branch when it does not exist. */
  head: string;
  /** Default: the repository's default branch. */
  base?: string;
  title?: string;
  body?: string;
  author?: string;
  draft?: boolean;
  /** Added right after opening, each with its own `labeled` webhook, as GitHub does. */
  labels?: string[];
  /** Login of a fork owner: the head branch lives in `<fork>/<name>`, a fork of the repository. */
  fork?: string;
}

export interface PullRequestTarget {
  repository: string;
  number: number;
  /** Who acts; default the pull request's author. */
  sender?: string;
}

/** Given to `onPush` whenever a pull request gets a new head commit (opened or pushed). */
export interface PushEvent {
  repository: string;
  number: number;
  headSha: string;
  branch: string;
}

export interface PullRequestSummary {
  repository: string;
  number: number;
  state: string;
  draft: boolean;
  merged: boolean;
  title: string;
  headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  labels: string[];
  htmlUrl: string;
}

export interface ControlResult {
  pullRequest: PullRequestSummary | null;
  /** The webhooks this call caused, in the order they were sent (empty when the app is not installed). */
  deliveries: DeliverySummary[];
}

const DEFAULT_AUTHOR = 'forge-dev';
const DEFAULT_ADMIN = 'forge-admin';

function parseRepository(fullName: string): { owner: string; name: string } {
  const match = /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)\/([A-Za-z0-9._-]+)$/.exec(fullName);
  if (!match?.[1] || !match[2]) {
    throw new ControlError(400, 'invalid_repository', `repository must be "owner/name", got "${fullName}"`, [
      { path: '/repository', message: 'expected owner/name' },
    ]);
  }
  return { owner: match[1], name: match[2] };
}

export class Simulator {
  private readonly store: ForgeStore;
  private readonly render: Renderer;
  private readonly webhooks: WebhookSender;
  private readonly auth: AppAuth;
  private readonly onPush: ((push: PushEvent) => void | Promise<void>) | undefined;

  constructor(deps: {
    store: ForgeStore;
    render: Renderer;
    webhooks: WebhookSender;
    auth: AppAuth;
    onPush?: ((push: PushEvent) => void | Promise<void>) | undefined;
  }) {
    this.store = deps.store;
    this.render = deps.render;
    this.webhooks = deps.webhooks;
    this.auth = deps.auth;
    this.onPush = deps.onPush;
  }

  async open(input: OpenPullRequestInput): Promise<ControlResult> {
    const { owner, name } = parseRepository(input.repository);
    const repository = this.store.ensureRepository(owner, name);
    const baseRef = input.base ?? repository.defaultBranch;
    const headRepository = input.fork
      ? this.store.ensureRepository(input.fork, repository.name, { fork: true })
      : repository;
    if (!input.fork && input.head === baseRef) {
      throw new ControlError(422, 'head_is_base', `head and base are both "${baseRef}"`, [
        { path: '/head', message: 'must differ from base' },
      ]);
    }
    const open = this.store
      .pulls(repository.id)
      .find(
        (p) => p.state === 'open' && p.headRepositoryId === headRepository.id && p.headRef === input.head,
      );
    if (open) {
      throw new ControlError(
        409,
        'pull_request_exists',
        `${input.repository}#${open.number} is already open for ${input.head}`,
      );
    }
    const baseSha = this.store.branchSha(repository, baseRef);
    const headSha = randomSha();
    this.store.pushCommit(headRepository, input.head, headSha);
    if (headRepository !== repository && !repository.commits.includes(headSha))
      repository.commits.push(headSha);
    const author = input.author ?? DEFAULT_AUTHOR;
    this.store.ensureAccount(author);
    const now = timestamp();
    const pull: PullRecord = {
      id: this.store.nextId(),
      repositoryId: repository.id,
      number: this.store.nextIssueNumber(repository.id),
      title: input.title ?? `Update ${input.head}`,
      body: input.body ?? null,
      state: 'open',
      draft: input.draft ?? false,
      author,
      headRepositoryId: headRepository.id,
      headRef: input.head,
      headSha,
      baseRef,
      baseSha,
      labels: [],
      merged: false,
      mergedAt: null,
      closedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    this.store.state.pulls.push(pull);
    this.store.changed();
    const events: { action: string }[] = [
      this.pullRequestEvent(pull, author, { action: 'opened' }) satisfies GitHub.PullRequestOpened,
    ];
    for (const label of input.labels ?? []) {
      if (pull.labels.some((l) => l.toLowerCase() === label.toLowerCase())) continue;
      pull.labels.push(this.store.ensureLabel(repository.id, label).name);
      events.push(this.labelEvent(pull, author, 'labeled', label));
    }
    const result = await this.deliver(pull, events);
    await this.firePush(pull);
    return result;
  }

  /** A new head commit: `synchronize` with `before`/`after`, then `onPush`. */
  async push(target: PullRequestTarget & { sha?: string }): Promise<ControlResult> {
    const pull = this.openPull(target);
    const before = pull.headSha;
    const after = target.sha?.toLowerCase() ?? randomSha();
    if (!/^[0-9a-f]{40}$/.test(after)) {
      throw new ControlError(400, 'invalid_sha', 'sha must be 40 hexadecimal characters', [
        { path: '/sha', message: 'expected 40 hex characters' },
      ]);
    }
    const headRepository = this.store.repositoryById(pull.headRepositoryId);
    this.store.pushCommit(headRepository, pull.headRef, after);
    const repository = this.store.repositoryById(pull.repositoryId);
    if (!repository.commits.includes(after)) repository.commits.push(after);
    pull.headSha = after;
    pull.updatedAt = timestamp();
    this.store.changed();
    const sender = target.sender ?? pull.author;
    const event = this.pullRequestEvent(pull, sender, {
      action: 'synchronize',
      before,
      after,
    }) satisfies GitHub.PullRequestSynchronize;
    const result = await this.deliver(pull, [event]);
    await this.firePush(pull);
    return result;
  }

  async label(target: PullRequestTarget & { label: string }): Promise<ControlResult> {
    const pull = this.pullOf(target);
    if (pull.labels.some((l) => l.toLowerCase() === target.label.toLowerCase()))
      return this.deliver(pull, []);
    pull.labels.push(this.store.ensureLabel(pull.repositoryId, target.label).name);
    pull.updatedAt = timestamp();
    this.store.changed();
    return this.deliver(pull, [this.labelEvent(pull, target.sender ?? pull.author, 'labeled', target.label)]);
  }

  async unlabel(target: PullRequestTarget & { label: string }): Promise<ControlResult> {
    const pull = this.pullOf(target);
    const index = pull.labels.findIndex((l) => l.toLowerCase() === target.label.toLowerCase());
    if (index === -1) return this.deliver(pull, []);
    pull.labels.splice(index, 1);
    pull.updatedAt = timestamp();
    this.store.changed();
    return this.deliver(pull, [
      this.labelEvent(pull, target.sender ?? pull.author, 'unlabeled', target.label),
    ]);
  }

  async close(target: PullRequestTarget & { merged?: boolean }): Promise<ControlResult> {
    const pull = this.openPull(target);
    const now = timestamp();
    pull.state = 'closed';
    pull.closedAt = now;
    pull.updatedAt = now;
    if (target.merged) {
      pull.merged = true;
      pull.mergedAt = now;
      this.store.pushCommit(this.store.repositoryById(pull.repositoryId), pull.baseRef, randomSha());
    }
    this.store.changed();
    const event = this.pullRequestEvent(pull, target.sender ?? pull.author, {
      action: 'closed',
    }) satisfies GitHub.PullRequestClosed;
    return this.deliver(pull, [event]);
  }

  async reopen(target: PullRequestTarget): Promise<ControlResult> {
    const pull = this.pullOf(target);
    if (pull.merged)
      throw new ControlError(409, 'pull_request_merged', `${target.repository}#${pull.number} is merged`);
    if (pull.state === 'open')
      throw new ControlError(409, 'pull_request_open', `${target.repository}#${pull.number} is open`);
    pull.state = 'open';
    pull.closedAt = null;
    pull.updatedAt = timestamp();
    this.store.changed();
    const event = this.pullRequestEvent(pull, target.sender ?? pull.author, {
      action: 'reopened',
    }) satisfies GitHub.PullRequestReopened;
    return this.deliver(pull, [event]);
  }

  /** `edited` with `changes.base`, as when someone picks another base branch in the UI. */
  async changeBase(target: PullRequestTarget & { base: string }): Promise<ControlResult> {
    const pull = this.openPull(target);
    if (target.base === pull.baseRef) return this.deliver(pull, []);
    const repository = this.store.repositoryById(pull.repositoryId);
    const from = { ref: pull.baseRef, sha: pull.baseSha };
    pull.baseRef = target.base;
    pull.baseSha = this.store.branchSha(repository, target.base);
    pull.updatedAt = timestamp();
    this.store.changed();
    const event = this.pullRequestEvent(pull, target.sender ?? pull.author, {
      action: 'edited',
      changes: { base: { ref: { from: from.ref }, sha: { from: from.sha } } },
    }) satisfies GitHub.PullRequestEdited;
    return this.deliver(pull, [event]);
  }

  /**
   * Installs the app on a repository: `installation.created` when the account had no installation
   * yet, else `installation_repositories.added`; nothing when it is already installed there.
   */
  async install(input: { repository: string; sender?: string }): Promise<ControlResult> {
    const { owner, name } = parseRepository(input.repository);
    const repository = this.store.ensureRepository(owner, name);
    const sender = this.render.user(input.sender ?? DEFAULT_ADMIN);
    const existing = this.store.installationOfAccount(owner);
    if (existing?.repositoryIds.includes(repository.id)) return { pullRequest: null, deliveries: [] };
    if (existing) {
      existing.repositoryIds.push(repository.id);
      this.store.changed();
      const payload = {
        action: 'added',
        installation: this.render.installation(existing),
        repository_selection: 'selected',
        repositories_added: [this.render.repositoryBrief(repository)],
        repositories_removed: [],
        requester: null,
        sender,
      } satisfies GitHub.InstallationRepositoriesAdded;
      return this.deliverEvents(null, [
        {
          event: 'installation_repositories',
          action: 'added',
          installationId: existing.id,
          repositoryId: null,
          payload,
        },
      ]);
    }
    const installation = {
      id: this.store.nextId(),
      account: owner,
      repositoryIds: [repository.id],
      createdAt: timestamp(),
    };
    this.store.ensureAccount(owner, AccountType.organization);
    this.store.state.installations.push(installation);
    this.store.changed();
    const payload = {
      action: 'created',
      installation: this.render.installation(installation),
      repositories: [this.render.repositoryBrief(repository)],
      requester: null,
      sender,
    } satisfies GitHub.InstallationCreated;
    return this.deliverEvents(null, [
      {
        event: 'installation',
        action: 'created',
        installationId: installation.id,
        repositoryId: null,
        payload,
      },
    ]);
  }

  /**
   * `owner/name` removes one repository (`installation_repositories.removed`); a bare `owner`
   * deletes the whole installation (`installation.deleted`) and revokes its tokens.
   */
  async uninstall(input: { target: string; sender?: string }): Promise<ControlResult> {
    const sender = this.render.user(input.sender ?? DEFAULT_ADMIN);
    if (!input.target.includes('/')) {
      const installation = this.store.installationOfAccount(input.target);
      if (!installation)
        throw new ControlError(404, 'installation_not_found', `the app is not installed on ${input.target}`);
      const payload = {
        action: 'deleted',
        installation: this.render.installation(installation),
        repositories: installation.repositoryIds.map((id) =>
          this.render.repositoryBrief(this.store.repositoryById(id)),
        ),
        sender,
      } satisfies GitHub.InstallationDeleted;
      this.store.state.installations = this.store.state.installations.filter((i) => i !== installation);
      this.auth.revokeInstallationTokens(installation.id);
      this.store.changed();
      return this.deliverEvents(null, [
        {
          event: 'installation',
          action: 'deleted',
          installationId: installation.id,
          repositoryId: null,
          payload,
        },
      ]);
    }
    const { owner, name } = parseRepository(input.target);
    const repository = this.store.repository(owner, name);
    const installation = repository && this.store.installationOfRepository(repository.id);
    if (!repository || !installation) {
      throw new ControlError(404, 'installation_not_found', `the app is not installed on ${input.target}`);
    }
    installation.repositoryIds = installation.repositoryIds.filter((id) => id !== repository.id);
    this.store.changed();
    const payload = {
      action: 'removed',
      installation: this.render.installation(installation),
      repository_selection: 'selected',
      repositories_added: [],
      repositories_removed: [this.render.repositoryBrief(repository)],
      requester: null,
      sender,
    } satisfies GitHub.InstallationRepositoriesRemoved;
    return this.deliverEvents(null, [
      {
        event: 'installation_repositories',
        action: 'removed',
        installationId: installation.id,
        repositoryId: null,
        payload,
      },
    ]);
  }

  /**
   * Suspends (or unsuspends) the app's installation on `account`, as its owner can in the
   * installation settings: `installation.suspend` / `unsuspend`. While suspended its tokens are
   * refused, no token is issued and its repositories send no webhooks. Nothing when it already is.
   */
  async setSuspended(input: {
    account: string;
    suspended: boolean;
    sender?: string;
  }): Promise<ControlResult> {
    const installation = this.store.installationOfAccount(input.account);
    if (!installation)
      throw new ControlError(404, 'installation_not_found', `the app is not installed on ${input.account}`);
    if (Boolean(installation.suspendedAt) === input.suspended) return { pullRequest: null, deliveries: [] };
    const login = input.sender ?? DEFAULT_ADMIN;
    installation.suspendedAt = input.suspended ? timestamp() : null;
    installation.suspendedBy = input.suspended ? login : null;
    if (input.suspended) this.auth.revokeInstallationTokens(installation.id);
    this.store.changed();
    const action = input.suspended ? 'suspend' : 'unsuspend';
    const payload = {
      action,
      installation: this.render.installation(installation),
      sender: this.render.user(login),
    } satisfies GitHub.InstallationSuspend | GitHub.InstallationUnsuspend;
    return this.deliverEvents(null, [
      { event: 'installation', action, installationId: installation.id, repositoryId: null, payload },
    ]);
  }

  summary(pull: PullRecord): PullRequestSummary {
    const repository = this.store.repositoryById(pull.repositoryId);
    return {
      repository: `${repository.owner}/${repository.name}`,
      number: pull.number,
      state: pull.state,
      draft: pull.draft,
      merged: pull.merged,
      title: pull.title,
      headRef: pull.headRef,
      headSha: pull.headSha,
      baseRef: pull.baseRef,
      baseSha: pull.baseSha,
      labels: [...pull.labels],
      htmlUrl: `${this.render.base}/${repository.owner}/${repository.name}/pull/${pull.number}`,
    };
  }

  private pullOf(target: PullRequestTarget): PullRecord {
    const { owner, name } = parseRepository(target.repository);
    const repository = this.store.repository(owner, name);
    const pull = repository && this.store.pull(repository.id, target.number);
    if (!pull) {
      throw new ControlError(
        404,
        'pull_request_not_found',
        `no pull request ${target.repository}#${target.number}`,
      );
    }
    return pull;
  }

  private openPull(target: PullRequestTarget): PullRecord {
    const pull = this.pullOf(target);
    if (pull.state !== 'open') {
      throw new ControlError(409, 'pull_request_closed', `${target.repository}#${pull.number} is closed`);
    }
    return pull;
  }

  private pullRequestEvent<const Extra extends { action: string }>(
    pull: PullRecord,
    sender: string,
    extra: Extra,
  ) {
    const repository = this.store.repositoryById(pull.repositoryId);
    const installation = this.store.installationOfRepository(repository.id);
    return {
      ...extra,
      number: pull.number,
      pull_request: this.render.pullRequest(pull),
      repository: this.render.repository(repository),
      ...this.organization(repository),
      ...(installation ? { installation: { id: installation.id, node_id: `MDIz:${installation.id}` } } : {}),
      sender: this.render.user(sender),
    };
  }

  private labelEvent(pull: PullRecord, sender: string, action: 'labeled' | 'unlabeled', name: string) {
    const label = this.render.label(this.store.ensureLabel(pull.repositoryId, name));
    return this.pullRequestEvent(pull, sender, { action, label }) satisfies
      | GitHub.PullRequestLabeled
      | GitHub.PullRequestUnlabeled;
  }

  private organization(repository: RepositoryRecord) {
    const account = this.store.account(repository.owner);
    if (account?.type !== AccountType.organization) return {};
    const user = this.render.user(account.login);
    return {
      organization: {
        login: account.login,
        id: account.id,
        node_id: user.node_id ?? '',
        url: `${this.render.base}/orgs/${account.login}`,
        repos_url: `${this.render.base}/orgs/${account.login}/repos`,
        avatar_url: user.avatar_url ?? '',
        description: null,
      },
    };
  }

  private deliver(pull: PullRecord, payloads: ({ action: string } & object)[]): Promise<ControlResult> {
    const installation = this.store.installationOfRepository(pull.repositoryId);
    // A suspended installation gets no webhooks for its repositories, as on GitHub.
    const events: WebhookEvent[] =
      installation && !installation.suspendedAt
        ? payloads.map((payload) => ({
            event: 'pull_request',
            action: payload.action,
            installationId: installation.id,
            repositoryId: pull.repositoryId,
            payload,
          }))
        : [];
    return this.deliverEvents(pull, events);
  }

  private async deliverEvents(pull: PullRecord | null, events: WebhookEvent[]): Promise<ControlResult> {
    const deliveries: DeliverySummary[] = [];
    for (const event of events) {
      const delivery = await this.webhooks.send(event);
      if (delivery) deliveries.push(summarise(delivery));
    }
    return { pullRequest: pull ? this.summary(pull) : null, deliveries };
  }

  private async firePush(pull: PullRecord): Promise<void> {
    if (!this.onPush) return;
    const repository = this.store.repositoryById(pull.repositoryId);
    try {
      await this.onPush({
        repository: `${repository.owner}/${repository.name}`,
        number: pull.number,
        headSha: pull.headSha,
        branch: pull.headRef,
      });
    } catch (error) {
      process.stderr.write(`local-forge: onPush failed: ${String(error)}\n`);
    }
  }
}
