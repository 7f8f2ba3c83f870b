// GitHub's own OpenAPI types, used to check that every object the forge renders uses GitHub's field
// names and value types. The forge renders a subset of each object's fields, hence DeepPartial.

import type { components as Rest } from '@octokit/openapi-types';
import type { components as Webhooks } from '@octokit/openapi-webhooks-types';

type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

type RestSchema<K extends keyof Rest['schemas']> = DeepPartial<Rest['schemas'][K]>;
type WebhookSchema<K extends keyof Webhooks['schemas']> = DeepPartial<Webhooks['schemas'][K]>;

export type User = RestSchema<'simple-user'>;
export type Repository = RestSchema<'full-repository'>;
export type App = RestSchema<'integration'>;
export type Installation = RestSchema<'installation'>;
export type Label = RestSchema<'label'>;
export type PullRequest = RestSchema<'pull-request'>;
export type PullRequestSimple = RestSchema<'pull-request-simple'>;
export type Issue = RestSchema<'issue'>;
export type IssueComment = RestSchema<'issue-comment'>;
export type CheckRun = RestSchema<'check-run'>;
export type Status = RestSchema<'status'>;
export type Deployment = RestSchema<'deployment'>;
export type DeploymentStatus = RestSchema<'deployment-status'>;
export type HookDeliveryItem = RestSchema<'hook-delivery-item'>;
export type HookDelivery = RestSchema<'hook-delivery'>;

export type PullRequestOpened = WebhookSchema<'webhook-pull-request-opened'>;
export type PullRequestReopened = WebhookSchema<'webhook-pull-request-reopened'>;
export type PullRequestSynchronize = WebhookSchema<'webhook-pull-request-synchronize'>;
export type PullRequestLabeled = WebhookSchema<'webhook-pull-request-labeled'>;
export type PullRequestUnlabeled = WebhookSchema<'webhook-pull-request-unlabeled'>;
export type PullRequestClosed = WebhookSchema<'webhook-pull-request-closed'>;
export type PullRequestEdited = WebhookSchema<'webhook-pull-request-edited'>;
export type InstallationCreated = WebhookSchema<'webhook-installation-created'>;
export type InstallationDeleted = WebhookSchema<'webhook-installation-deleted'>;
export type InstallationSuspend = WebhookSchema<'webhook-installation-suspend'>;
export type InstallationUnsuspend = WebhookSchema<'webhook-installation-unsuspend'>;
export type InstallationRepositoriesAdded = WebhookSchema<'webhook-installation-repositories-added'>;
export type InstallationRepositoriesRemoved = WebhookSchema<'webhook-installation-repositories-removed'>;
