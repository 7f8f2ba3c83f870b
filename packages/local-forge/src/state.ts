// Everything the forge knows, as one plain JSON-serialisable object, so persistence is a single
// snapshot. REST and webhook shapes are rendered from these records (see render.ts).

import { randomBytes } from 'node:crypto';

export const AccountType = { user: 'User', organization: 'Organization', bot: 'Bot' } as const;
export type AccountType = (typeof AccountType)[keyof typeof AccountType];

export interface AccountRecord {
  id: number;
  login: string;
  type: AccountType;
}

export interface RepositoryRecord {
  id: number;
  owner: string;
  name: string;
  private: boolean;
  fork: boolean;
  defaultBranch: string;
  /** Branch name → head SHA. */
  branches: Record<string, string>;
  /** Every SHA ever pushed, so check runs and statuses can refuse unknown commits as GitHub does. */
  commits: string[];
  createdAt: string;
}

export interface InstallationRecord {
  id: number;
  account: string;
  repositoryIds: number[];
  createdAt: string;
  /** Set while suspended (absent in state files written before suspensions existed). */
  suspendedAt?: string | null;
  suspendedBy?: string | null;
}

const PullState = { open: 'open', closed: 'closed' } as const;
type PullState = (typeof PullState)[keyof typeof PullState];

export interface PullRecord {
  id: number;
  repositoryId: number;
  number: number;
  title: string;
  body: string | null;
  state: PullState;
  draft: boolean;
  author: string;
  /** The repository the head branch lives in: the base repository itself, or a fork of it. */
  headRepositoryId: number;
  headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  labels: string[];
  merged: boolean;
  mergedAt: string | null;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface LabelRecord {
  id: number;
  repositoryId: number;
  name: string;
  color: string;
  description: string;
}

export interface CommentRecord {
  id: number;
  repositoryId: number;
  issueNumber: number;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
}

export const CHECK_STATUSES = [
  'queued',
  'in_progress',
  'completed',
  'waiting',
  'requested',
  'pending',
] as const;
type CheckStatus = (typeof CHECK_STATUSES)[number];
export const CHECK_CONCLUSIONS = [
  'action_required',
  'cancelled',
  'failure',
  'neutral',
  'success',
  'skipped',
  'timed_out',
] as const;
type CheckConclusion = (typeof CHECK_CONCLUSIONS)[number];
export const COMMIT_STATES = ['error', 'failure', 'pending', 'success'] as const;
type CommitState = (typeof COMMIT_STATES)[number];

export interface CheckRunRecord {
  id: number;
  repositoryId: number;
  headSha: string;
  name: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  externalId: string | null;
  detailsUrl: string | null;
  startedAt: string | null;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
}

export interface StatusRecord {
  id: number;
  repositoryId: number;
  sha: string;
  state: CommitState;
  targetUrl: string | null;
  description: string | null;
  context: string;
  creator: string;
  createdAt: string;
}

export const DEPLOYMENT_STATES = [
  'error',
  'failure',
  'inactive',
  'in_progress',
  'queued',
  'pending',
  'success',
] as const;
type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

export interface DeploymentRecord {
  id: number;
  repositoryId: number;
  sha: string;
  /** The ref as asked for: a branch, a tag or a SHA. */
  ref: string;
  task: string;
  payload: Record<string, unknown> | string;
  environment: string;
  originalEnvironment: string;
  description: string | null;
  transientEnvironment: boolean;
  productionEnvironment: boolean;
  creator: string;
  createdAt: string;
  updatedAt: string;
}

export interface DeploymentStatusRecord {
  id: number;
  deploymentId: number;
  state: DeploymentState;
  description: string;
  environment: string;
  environmentUrl: string;
  logUrl: string;
  creator: string;
  createdAt: string;
}

export interface TokenRecord {
  token: string;
  installationId: number;
  expiresAt: string;
  permissions: Record<string, string>;
  /** Null: every repository of the installation. */
  repositoryIds: number[] | null;
}

export interface DeliveryRecord {
  id: number;
  guid: string;
  event: string;
  action: string | null;
  installationId: number | null;
  repositoryId: number | null;
  deliveredAt: string;
  redelivery: boolean;
  /** Seconds, as GitHub reports it. */
  duration: number;
  status: string;
  statusCode: number;
  url: string;
  requestHeaders: Record<string, string>;
  /** The exact body sent, so a redelivery carries the same bytes and signature. */
  body: string;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
}

export interface AppRecord {
  id: number;
  slug: string;
  hookId: number;
  privateKey: string;
  webhookSecret: string;
  createdAt: string;
}

export interface ForgeState {
  version: 1;
  app: AppRecord;
  nextId: number;
  accounts: AccountRecord[];
  repositories: RepositoryRecord[];
  installations: InstallationRecord[];
  pulls: PullRecord[];
  labels: LabelRecord[];
  comments: CommentRecord[];
  checkRuns: CheckRunRecord[];
  statuses: StatusRecord[];
  deployments: DeploymentRecord[];
  deploymentStatuses: DeploymentStatusRecord[];
  tokens: TokenRecord[];
  deliveries: DeliveryRecord[];
}

/** GitHub keeps deliveries for a few days; a bounded list keeps the state file small. */
export const MAX_DELIVERIES = 1000;

export function emptyState(app: AppRecord): ForgeState {
  return {
    version: 1,
    app,
    nextId: 1000,
    accounts: [],
    repositories: [],
    installations: [],
    pulls: [],
    labels: [],
    comments: [],
    checkRuns: [],
    statuses: [],
    deployments: [],
    deploymentStatuses: [],
    tokens: [],
    deliveries: [],
  };
}

/** GitHub timestamps: ISO 8601 UTC, whole seconds. */
export function timestamp(date = new Date()): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function randomSha(): string {
  return randomBytes(20).toString('hex');
}
