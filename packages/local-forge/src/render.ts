// Turns records into the JSON GitHub answers with and sends in webhooks. API URLs point at the
// forge itself; html_url paths mirror github.com's but are not served.

import type * as GitHub from './github-types.ts';
import {
  type AccountRecord,
  AccountType,
  type CheckRunRecord,
  type CommentRecord,
  type DeliveryRecord,
  type DeploymentRecord,
  type DeploymentStatusRecord,
  type InstallationRecord,
  type LabelRecord,
  type PullRecord,
  type RepositoryRecord,
  type StatusRecord,
} from './state.ts';
import type { ForgeStore } from './store.ts';

/** What the app asks for when installed; installation tokens may narrow it, never widen it. */
export const APP_PERMISSIONS: Record<string, string> = {
  checks: 'write',
  contents: 'read',
  deployments: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
  statuses: 'write',
};

const APP_EVENTS = ['pull_request'];

/** The JSON a delivery carried: its body, or the body's `payload` field when it was sent as a form. */
function payloadOf(delivery: DeliveryRecord): string {
  const form = delivery.requestHeaders['Content-Type'] === 'application/x-www-form-urlencoded';
  return form ? (new URLSearchParams(delivery.body).get('payload') ?? '{}') : delivery.body;
}

const nodeId = (prefix: string, id: number): string =>
  `${prefix}_${Buffer.from(`forge:${id}`).toString('base64url')}`;

export class Renderer {
  /** The forge's own URL, known once it listens. */
  base = '';
  private readonly store: ForgeStore;

  constructor(store: ForgeStore) {
    this.store = store;
  }

  private get app() {
    return this.store.state.app;
  }

  botLogin(): string {
    return `${this.app.slug}[bot]`;
  }

  user(login: string) {
    const account: AccountRecord =
      login === this.botLogin()
        ? { id: this.app.id + 40_000_000, login, type: AccountType.bot }
        : this.store.ensureAccount(login);
    return {
      login: account.login,
      id: account.id,
      node_id: nodeId(account.type === AccountType.organization ? 'O' : 'U', account.id),
      avatar_url: `${this.base}/avatars/${account.login}`,
      gravatar_id: '',
      url: `${this.base}/users/${account.login}`,
      html_url: `${this.base}/${account.login}`,
      type: account.type,
      site_admin: false,
    } satisfies GitHub.User;
  }

  repository(repository: RepositoryRecord) {
    const fullName = `${repository.owner}/${repository.name}`;
    const url = `${this.base}/repos/${fullName}`;
    return {
      id: repository.id,
      node_id: nodeId('R', repository.id),
      name: repository.name,
      full_name: fullName,
      private: repository.private,
      visibility: repository.private ? ('private' as const) : ('public' as const),
      owner: this.user(repository.owner),
      html_url: `${this.base}/${fullName}`,
      description: null,
      fork: repository.fork,
      url,
      pulls_url: `${url}/pulls{/number}`,
      issues_url: `${url}/issues{/number}`,
      statuses_url: `${url}/statuses/{sha}`,
      created_at: repository.createdAt,
      updated_at: repository.createdAt,
      pushed_at: repository.createdAt,
      default_branch: repository.defaultBranch,
      archived: false,
      disabled: false,
    } satisfies GitHub.Repository;
  }

  /** The short form webhooks use in `repositories`, `repositories_added` and `repositories_removed`. */
  repositoryBrief(repository: RepositoryRecord) {
    return {
      id: repository.id,
      node_id: nodeId('R', repository.id),
      name: repository.name,
      full_name: `${repository.owner}/${repository.name}`,
      private: repository.private,
    };
  }

  appObject() {
    return {
      id: this.app.id,
      slug: this.app.slug,
      node_id: nodeId('A', this.app.id),
      client_id: `Iv1.${this.app.id.toString(16).padStart(16, '0')}`,
      owner: this.user(this.store.state.installations[0]?.account ?? 'local-forge'),
      name: this.app.slug,
      description: 'Local GitHub App stand-in',
      external_url: this.base,
      html_url: `${this.base}/apps/${this.app.slug}`,
      created_at: this.app.createdAt,
      updated_at: this.app.createdAt,
      permissions: APP_PERMISSIONS,
      events: APP_EVENTS,
      installations_count: this.store.state.installations.length,
    } satisfies GitHub.App;
  }

  installation(installation: InstallationRecord) {
    const account = this.store.ensureAccount(installation.account, AccountType.organization);
    return {
      id: installation.id,
      account: this.user(account.login),
      repository_selection: 'selected',
      access_tokens_url: `${this.base}/app/installations/${installation.id}/access_tokens`,
      repositories_url: `${this.base}/installation/repositories`,
      html_url: `${this.base}/organizations/${account.login}/settings/installations/${installation.id}`,
      app_id: this.app.id,
      app_slug: this.app.slug,
      target_id: account.id,
      target_type: account.type,
      permissions: APP_PERMISSIONS,
      events: APP_EVENTS,
      created_at: installation.createdAt,
      updated_at: installation.createdAt,
      single_file_name: null,
      suspended_by: installation.suspendedBy ? this.user(installation.suspendedBy) : null,
      suspended_at: installation.suspendedAt ?? null,
    } satisfies GitHub.Installation;
  }

  label(label: LabelRecord) {
    const repository = this.store.repositoryById(label.repositoryId);
    return {
      id: label.id,
      node_id: nodeId('LA', label.id),
      url: `${this.base}/repos/${repository.owner}/${repository.name}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      color: label.color,
      default: false,
      description: label.description,
    } satisfies GitHub.Label;
  }

  private pullLabels(pull: PullRecord) {
    return pull.labels.map((name) => this.label(this.store.ensureLabel(pull.repositoryId, name)));
  }

  private branch(repository: RepositoryRecord, ref: string, sha: string) {
    return {
      label: `${repository.owner}:${ref}`,
      ref,
      sha,
      user: this.user(repository.owner),
      repo: this.repository(repository),
    };
  }

  /** The list form (pull-request-simple); pullRequest() adds the counters and merge fields. */
  pullRequestSimple(pull: PullRecord) {
    const repository = this.store.repositoryById(pull.repositoryId);
    const headRepository = this.store.repositoryById(pull.headRepositoryId);
    const fullName = `${repository.owner}/${repository.name}`;
    const url = `${this.base}/repos/${fullName}/pulls/${pull.number}`;
    const htmlUrl = `${this.base}/${fullName}/pull/${pull.number}`;
    const issueUrl = `${this.base}/repos/${fullName}/issues/${pull.number}`;
    return {
      url,
      id: pull.id,
      node_id: nodeId('PR', pull.id),
      html_url: htmlUrl,
      diff_url: `${htmlUrl}.diff`,
      patch_url: `${htmlUrl}.patch`,
      issue_url: issueUrl,
      commits_url: `${url}/commits`,
      comments_url: `${issueUrl}/comments`,
      statuses_url: `${this.base}/repos/${fullName}/statuses/${pull.headSha}`,
      number: pull.number,
      state: pull.state,
      locked: false,
      title: pull.title,
      user: this.user(pull.author),
      body: pull.body,
      labels: this.pullLabels(pull),
      milestone: null,
      active_lock_reason: null,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: pull.closedAt,
      merged_at: pull.mergedAt,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: this.branch(headRepository, pull.headRef, pull.headSha),
      base: this.branch(repository, pull.baseRef, pull.baseSha),
      author_association: 'CONTRIBUTOR',
      auto_merge: null,
      draft: pull.draft,
    } satisfies GitHub.PullRequestSimple;
  }

  private commentCount(pull: PullRecord): number {
    return this.store.state.comments.filter(
      (c) => c.repositoryId === pull.repositoryId && c.issueNumber === pull.number,
    ).length;
  }

  pullRequest(pull: PullRecord) {
    return {
      ...this.pullRequestSimple(pull),
      merged: pull.merged,
      mergeable: pull.state === 'open' ? true : null,
      rebaseable: pull.state === 'open' ? true : null,
      mergeable_state: pull.state === 'open' ? 'clean' : 'unknown',
      merged_by: pull.merged ? this.user(pull.author) : null,
      comments: this.commentCount(pull),
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 0,
      deletions: 0,
      changed_files: 0,
    } satisfies GitHub.PullRequest;
  }

  /** A pull request as the issues endpoints show it: with `pull_request`. */
  issue(pull: PullRecord) {
    const simple = this.pullRequestSimple(pull);
    const repository = this.store.repositoryById(pull.repositoryId);
    const repositoryUrl = `${this.base}/repos/${repository.owner}/${repository.name}`;
    const url = `${repositoryUrl}/issues/${pull.number}`;
    return {
      id: pull.id,
      node_id: nodeId('I', pull.id),
      url,
      repository_url: repositoryUrl,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: simple.html_url,
      number: pull.number,
      state: pull.state,
      state_reason: null,
      title: pull.title,
      body: pull.body,
      user: this.user(pull.author),
      labels: this.pullLabels(pull),
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.commentCount(pull),
      pull_request: {
        url: `${repositoryUrl}/pulls/${pull.number}`,
        html_url: simple.html_url,
        diff_url: simple.diff_url,
        patch_url: simple.patch_url,
        merged_at: pull.mergedAt,
      },
      closed_at: pull.closedAt,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      draft: pull.draft,
      author_association: 'CONTRIBUTOR',
    } satisfies GitHub.Issue;
  }

  comment(comment: CommentRecord) {
    const repository = this.store.repositoryById(comment.repositoryId);
    const fullName = `${repository.owner}/${repository.name}`;
    return {
      id: comment.id,
      node_id: nodeId('IC', comment.id),
      url: `${this.base}/repos/${fullName}/issues/comments/${comment.id}`,
      html_url: `${this.base}/${fullName}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
      issue_url: `${this.base}/repos/${fullName}/issues/${comment.issueNumber}`,
      body: comment.body,
      user: this.user(comment.author),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      author_association: comment.author === this.botLogin() ? 'NONE' : 'CONTRIBUTOR',
      performed_via_github_app: comment.author === this.botLogin() ? this.appObject() : null,
    } satisfies GitHub.IssueComment;
  }

  checkRun(run: CheckRunRecord) {
    const repository = this.store.repositoryById(run.repositoryId);
    const fullName = `${repository.owner}/${repository.name}`;
    const url = `${this.base}/repos/${fullName}/check-runs/${run.id}`;
    const pulls = this.store
      .pulls(repository.id)
      .filter((p) => p.state === 'open' && p.headSha === run.headSha && p.headRepositoryId === repository.id);
    const repo = { id: repository.id, url: `${this.base}/repos/${fullName}`, name: repository.name };
    return {
      id: run.id,
      node_id: nodeId('CR', run.id),
      head_sha: run.headSha,
      external_id: run.externalId,
      url,
      html_url: `${this.base}/${fullName}/runs/${run.id}`,
      details_url: run.detailsUrl,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.startedAt,
      completed_at: run.completedAt,
      output: { ...run.output, annotations_count: 0, annotations_url: `${url}/annotations` },
      name: run.name,
      check_suite: null,
      app: this.appObject(),
      pull_requests: pulls.map((p) => ({
        id: p.id,
        number: p.number,
        url: `${this.base}/repos/${fullName}/pulls/${p.number}`,
        head: { ref: p.headRef, sha: p.headSha, repo },
        base: { ref: p.baseRef, sha: p.baseSha, repo },
      })),
    } satisfies GitHub.CheckRun;
  }

  status(status: StatusRecord) {
    const repository = this.store.repositoryById(status.repositoryId);
    return {
      id: status.id,
      node_id: nodeId('SC', status.id),
      url: `${this.base}/repos/${repository.owner}/${repository.name}/statuses/${status.sha}`,
      avatar_url: null,
      state: status.state,
      description: status.description,
      target_url: status.targetUrl,
      context: status.context,
      created_at: status.createdAt,
      updated_at: status.createdAt,
      creator: this.user(status.creator),
    } satisfies GitHub.Status;
  }

  deployment(deployment: DeploymentRecord) {
    const repository = this.store.repositoryById(deployment.repositoryId);
    const repositoryUrl = `${this.base}/repos/${repository.owner}/${repository.name}`;
    const url = `${repositoryUrl}/deployments/${deployment.id}`;
    const byApp = deployment.creator === this.botLogin();
    return {
      url,
      id: deployment.id,
      node_id: nodeId('DE', deployment.id),
      sha: deployment.sha,
      ref: deployment.ref,
      task: deployment.task,
      payload: deployment.payload,
      original_environment: deployment.originalEnvironment,
      environment: deployment.environment,
      description: deployment.description,
      creator: this.user(deployment.creator),
      created_at: deployment.createdAt,
      updated_at: deployment.updatedAt,
      statuses_url: `${url}/statuses`,
      repository_url: repositoryUrl,
      transient_environment: deployment.transientEnvironment,
      production_environment: deployment.productionEnvironment,
      performed_via_github_app: byApp ? this.appObject() : null,
    } satisfies GitHub.Deployment;
  }

  deploymentStatus(status: DeploymentStatusRecord) {
    const deployment = this.store.state.deployments.find((d) => d.id === status.deploymentId);
    if (!deployment) throw new Error(`deployment status ${status.id} has no deployment`);
    const repository = this.store.repositoryById(deployment.repositoryId);
    const repositoryUrl = `${this.base}/repos/${repository.owner}/${repository.name}`;
    const deploymentUrl = `${repositoryUrl}/deployments/${deployment.id}`;
    return {
      url: `${deploymentUrl}/statuses/${status.id}`,
      id: status.id,
      node_id: nodeId('DES', status.id),
      state: status.state,
      creator: this.user(status.creator),
      description: status.description,
      environment: status.environment,
      // GitHub still answers the field log_url replaced, with the same value.
      target_url: status.logUrl,
      created_at: status.createdAt,
      updated_at: status.createdAt,
      deployment_url: deploymentUrl,
      repository_url: repositoryUrl,
      environment_url: status.environmentUrl,
      log_url: status.logUrl,
      performed_via_github_app: status.creator === this.botLogin() ? this.appObject() : null,
    } satisfies GitHub.DeploymentStatus;
  }

  deliveryItem(delivery: DeliveryRecord) {
    return {
      id: delivery.id,
      guid: delivery.guid,
      delivered_at: delivery.deliveredAt,
      redelivery: delivery.redelivery,
      duration: delivery.duration,
      status: delivery.status,
      status_code: delivery.statusCode,
      event: delivery.event,
      action: delivery.action,
      installation_id: delivery.installationId,
      repository_id: delivery.repositoryId,
      throttled_at: null,
    } satisfies GitHub.HookDeliveryItem;
  }

  delivery(delivery: DeliveryRecord) {
    return {
      ...(this.deliveryItem(delivery) as GitHub.HookDelivery),
      url: delivery.url,
      request: { headers: delivery.requestHeaders, payload: JSON.parse(payloadOf(delivery)) },
      response: { headers: delivery.responseHeaders, payload: delivery.responseBody },
    } satisfies GitHub.HookDelivery;
  }
}
