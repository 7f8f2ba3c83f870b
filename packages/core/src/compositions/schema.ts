/**
 * Request and response shapes of the composition routes. One schema per shape: validation, the
 * TypeScript types, the OpenAPI document and the CLI all come from here.
 */

import * as v from 'valibot';
import { formatDuration } from '../duration.ts';
import { CompositionName, Id, ResourceName } from '../names.ts';
import { OperationKind, OperationStatus, OwnerKind } from '../operations/model.ts';
import { pageSchema } from '../paging.ts';
import { type CompositionRecord, EventActorKind, EventType, effectivePhase, Phase } from './model.ts';
import { SleepState, sleepView } from './sleep.ts';

export const maxOverrides = 3;
/**
 * Keys an `overrides` or `expected_preview_revisions` map may hold at all. More than
 * `maxOverrides` overrides is a rule the planner reports (a blocker on the plan route); this bound
 * only keeps a body from carrying thousands of entries into it.
 */
const maxMapEntries = 64;
export const defaultTtlSeconds = 4 * 3600;
export const minTtlSeconds = 60;
export const maxTtlSeconds = 24 * 3600;

const revision = v.pipe(v.number(), v.integer(), v.minValue(1));

/**
 * One override as sent. Exactly one selector is required; that rule (and image syntax, the
 * override count, TTL bounds) is checked by the planner so the plan route can report it as a
 * blocker instead of refusing the request.
 */
const selector = v.optional(
  v.pipe(
    v.nullable(v.string()),
    v.transform((value) => value ?? undefined),
  ),
);
/** Absent and null mean the same, so an override entry as a composition answers it can be sent back. */
const OverrideInput = v.strictObject({ image: selector, build_id: selector });

const boundedMap = <TValue extends v.GenericSchema>(value: TValue) =>
  v.pipe(v.record(v.string(), value), v.maxEntries(maxMapEntries, `at most ${maxMapEntries} entries`));
const Overrides = boundedMap(OverrideInput);
const ExpectedRevisions = boundedMap(revision);

export const CreateCompositionBody = v.strictObject({
  project: ResourceName,
  /** Absent: the project's `default_baseline`. */
  baseline: v.optional(ResourceName),
  name: CompositionName,
  overrides: v.optional(Overrides, {}),
  ttl: v.optional(v.string()),
  message_isolation: v.optional(v.boolean(), false),
  expected_preview_revisions: v.optional(ExpectedRevisions, {}),
});
export type CreateCompositionBody = v.InferOutput<typeof CreateCompositionBody>;

export const UpdateCompositionBody = v.strictObject({
  expected_generation: v.pipe(v.number(), v.integer(), v.minValue(1)),
  overrides: Overrides,
  expected_preview_revisions: v.optional(ExpectedRevisions, {}),
});
export type UpdateCompositionBody = v.InferOutput<typeof UpdateCompositionBody>;

const timestamp = v.pipe(v.string(), v.isoTimestamp());
const nullableString = v.nullable(v.string());

const OverrideView = v.object({ image: nullableString, build_id: nullableString });
const ResolvedImageView = v.object({
  image: v.string(),
  source: v.picklist(['image', 'build']),
  build_id: nullableString,
  digest: nullableString,
});
const BlockerView = v.object({ code: v.string(), message: v.string(), component: nullableString });
const CautionView = v.object({ code: v.string(), message: v.string() });
const EndpointView = v.object({ url: v.string(), ready: v.boolean() });
const OperationRefView = v.object({
  id: v.string(),
  kind: v.enum(OperationKind),
  status: v.enum(OperationStatus),
});
const MessageSubscriptionView = v.object({
  component: v.string(),
  topic: v.string(),
  queue_url: nullableString,
  ready: v.boolean(),
});

/** Null: its forks never sleep. `since`: when the state began; `after`: the idle time before they sleep. */
const SleepView = v.nullable(v.object({ state: v.enum(SleepState), since: timestamp, after: v.string() }));

export const CompositionView = v.object({
  id: Id,
  project: v.string(),
  baseline: v.string(),
  name: v.string(),
  owner: v.object({ kind: v.enum(OwnerKind), subject: v.string() }),
  generation: v.pipe(v.number(), v.integer(), v.minValue(1)),
  observed_generation: v.pipe(v.number(), v.integer(), v.minValue(0)),
  phase: v.enum(Phase),
  ttl: v.string(),
  expires_at: timestamp,
  created_at: timestamp,
  updated_at: timestamp,
  message_isolation: v.boolean(),
  /**
   * Where its objects live: the baseline's cluster and namespace when it was created, kept when the
   * catalog changes. `cluster` is null for one made before clusters were named (the stage's only one).
   */
  destination: v.object({ cluster: nullableString, namespace: v.string() }),
  overrides: v.record(v.string(), OverrideView),
  desired: v.object({
    generation: v.number(),
    images: v.record(v.string(), ResolvedImageView),
    inherited: v.array(v.string()),
    profile_revisions: v.record(v.string(), v.number()),
  }),
  observed: v.object({
    generation: v.number(),
    components: v.record(
      v.string(),
      v.object({ image: v.string(), ready: v.boolean(), generation: v.number() }),
    ),
    blockers: v.array(BlockerView),
    updated_at: v.nullable(timestamp),
  }),
  endpoints: v.object({ public: EndpointView }),
  latest_operation: OperationRefView,
  message_subscriptions: v.nullable(v.array(MessageSubscriptionView)),
  sleep: SleepView,
});
export type CompositionView = v.InferOutput<typeof CompositionView>;

export const CompositionList = pageSchema(CompositionView);

export const CompositionStatusView = v.object({
  id: v.string(),
  phase: v.enum(Phase),
  generation: v.number(),
  observed_generation: v.number(),
  expires_at: timestamp,
  latest_operation: OperationRefView,
});
export type CompositionStatusView = v.InferOutput<typeof CompositionStatusView>;

export const CompositionEndpointsView = v.object({
  id: v.string(),
  phase: v.enum(Phase),
  endpoints: v.object({ public: EndpointView }),
});
export type CompositionEndpointsView = v.InferOutput<typeof CompositionEndpointsView>;

export const PlanView = v.object({
  images: v.record(v.string(), ResolvedImageView),
  inherited: v.array(v.string()),
  profile_revisions: v.record(v.string(), v.number()),
  dependencies: v.record(v.string(), v.array(v.string())),
  destination: v.nullable(v.object({ cluster: v.string(), namespace: v.string(), url: v.string() })),
  lifetime: v.object({ ttl: nullableString, expires_at: v.nullable(timestamp) }),
  resource_estimate: v.object({ cpu_millicores: v.number(), memory_mib: v.number(), pods: v.number() }),
  /** Whether its forks sleep, after how long without a request or a message; null: never. */
  sleep: v.nullable(v.object({ after: v.string() })),
  blockers: v.array(BlockerView),
  cautions: v.array(CautionView),
});
export type PlanView = v.InferOutput<typeof PlanView>;

const EventView = v.object({
  id: v.string(),
  composition_id: v.string(),
  type: v.enum(EventType),
  at: timestamp,
  actor: v.object({ kind: v.enum(EventActorKind), subject: v.string() }),
  operation_id: nullableString,
  generation: v.number(),
  message: v.string(),
  data: v.record(v.string(), v.unknown()),
});
export const EventList = pageSchema(EventView);

/** The public shape of a stored composition at `now` (expiry is computed on every read). */
export function compositionView(record: CompositionRecord, now: Date): CompositionView {
  return {
    id: record.id,
    project: record.project,
    baseline: record.baseline,
    name: record.name,
    owner: record.owner,
    generation: record.generation,
    observed_generation: record.observed_generation,
    phase: effectivePhase(record, now),
    ttl: formatDuration(record.ttl_seconds),
    expires_at: record.expires_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
    message_isolation: record.message_isolation,
    destination: { cluster: record.cluster ?? null, namespace: record.namespace },
    overrides: record.overrides,
    desired: {
      generation: record.generation,
      images: record.desired.images,
      inherited: record.desired.inherited,
      profile_revisions: record.desired.profile_revisions,
    },
    observed: {
      generation: record.observed_generation,
      components: record.observed.components,
      blockers: record.observed.blockers,
      updated_at: record.observed.updated_at,
    },
    endpoints: { public: { url: record.public_url, ready: record.public_ready } },
    latest_operation: record.latest_operation,
    message_subscriptions: record.message_subscriptions,
    sleep: sleepView(record.sleep),
  };
}

export function statusView(record: CompositionRecord, now: Date): CompositionStatusView {
  return {
    id: record.id,
    phase: effectivePhase(record, now),
    generation: record.generation,
    observed_generation: record.observed_generation,
    expires_at: record.expires_at,
    latest_operation: record.latest_operation,
  };
}

export function endpointsView(record: CompositionRecord, now: Date): CompositionEndpointsView {
  return {
    id: record.id,
    phase: effectivePhase(record, now),
    endpoints: { public: { url: record.public_url, ready: record.public_ready } },
  };
}
