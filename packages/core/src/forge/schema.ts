/** The forge's wire bodies and views: preview policies, previews, deliveries, status, installations. */

import * as v from 'valibot';
import { ResourceName } from '../names.ts';
import { pageSchema } from '../paging.ts';
import type { ChangeRecord } from './change-model.ts';
import { DeliveryState, FeedbackMode, GroupBy, type PreviewRecord, PreviewState } from './model.ts';

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
  /** `branch`: pull requests of one head branch in the project's repositories form one change (docs/forge.md). */
  group_by: v.optional(v.enum(GroupBy), GroupBy.None),
  /** Besides the check run: the one comment, a GitHub Deployment, or both (docs/forge.md). */
  feedback: v.optional(v.enum(FeedbackMode), FeedbackMode.Comment),
  /** Optimistic concurrency: the revision read (0 creates). Omitted: overwrite. */
  expected_revision: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type PreviewPolicyBody = v.InferOutput<typeof PreviewPolicyBody>;

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
  group_by: v.enum(GroupBy),
  feedback: v.enum(FeedbackMode),
  revision: v.number(),
  updated_at: v.string(),
  updated_by: v.string(),
});
export const PreviewPolicyList = pageSchema(PreviewPolicyView);

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
  /** The change whose one composition it shares with other pull requests, and they; null: its own. */
  change: v.nullable(
    v.object({
      id: v.string(),
      pull_requests: v.array(
        v.object({ repository: v.string(), number: v.number(), components: v.array(v.string()) }),
      ),
    }),
  ),
  url: v.nullable(v.string()),
  expires_at: v.nullable(v.string()),
  last_error: v.nullable(v.object({ code: v.string(), message: v.string() })),
  created_at: v.string(),
  updated_at: v.string(),
});
export type PreviewView = v.InferOutput<typeof PreviewView>;
export const PreviewList = pageSchema(PreviewView);

export function previewView(record: PreviewRecord, change: ChangeRecord | null): PreviewView {
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
    change:
      record.change_id && change?.id === record.change_id
        ? { id: change.id, pull_requests: change.members.map((member) => ({ ...member })) }
        : null,
    url: record.url,
    expires_at: record.expires_at,
    last_error: record.last_error,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
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
