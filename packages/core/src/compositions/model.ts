/** Phases, events and the stored composition. Enums are `as const` objects with derived types. */
import { type OperationKind, type OperationStatus, type Owner, OwnerKind } from '../operations/model.ts';
import type { SleepRecord } from './sleep.ts';

export const Phase = {
  Created: 'created',
  Provisioning: 'provisioning',
  Ready: 'ready',
  Failed: 'failed',
  Updating: 'updating',
  Destroying: 'destroying',
  Destroyed: 'destroyed',
  /** Never stored: read as such past `expires_at` until the sweep starts the destroy. */
  Expired: 'expired',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];
type StoredPhase = Exclude<Phase, typeof Phase.Expired>;

interface OverrideSelector {
  image: string | null;
  build_id: string | null;
}

export interface ResolvedImage {
  image: string;
  source: 'image' | 'build';
  build_id: string | null;
  digest: string | null;
}

export interface Blocker {
  code: string;
  message: string;
  component: string | null;
}

interface ObservedComponent {
  image: string;
  ready: boolean;
  /** The composition generation this component was last rolled out for. */
  generation: number;
}

export interface MessageSubscriptionState {
  component: string;
  topic: string;
  queue_url: string | null;
  ready: boolean;
}

interface OperationRef {
  id: string;
  kind: OperationKind;
  status: OperationStatus;
}

/** The stored composition. `lock_version` guards every read-modify-write. */
export interface CompositionRecord {
  id: string;
  project: string;
  baseline: string;
  /** The baseline's namespace when the composition was created: where its objects live, even if the catalog changes. */
  namespace: string;
  /**
   * The baseline's cluster when the composition was created, kept like the namespace. Absent on
   * records made before clusters were named: they live on the stage's only cluster.
   */
  cluster?: string;
  name: string;
  owner: Owner;
  generation: number;
  observed_generation: number;
  phase: StoredPhase;
  ttl_seconds: number;
  expires_at: string;
  created_at: string;
  updated_at: string;
  message_isolation: boolean;
  overrides: Record<string, OverrideSelector>;
  desired: {
    images: Record<string, ResolvedImage>;
    inherited: string[];
    profile_revisions: Record<string, number>;
    /** Catalog version the desired state was computed from; the rollout uses exactly this version. */
    catalog_version: number;
    catalog_version_id: string;
  };
  observed: {
    components: Record<string, ObservedComponent>;
    blockers: Blocker[];
    updated_at: string | null;
  };
  public_url: string;
  public_ready: boolean;
  latest_operation: OperationRef;
  /** The operation allowed to act now; null when idle. */
  active_operation: string | null;
  /** Bumped by every new operation; a step whose operation is not current stops (fencing). */
  epoch: number;
  message_subscriptions: MessageSubscriptionState[] | null;
  /** Its forks' sleep (docs/sleep.md); null or absent (older records): they never sleep. */
  sleep?: SleepRecord | null | undefined;
  destroyed_at: string | null;
  lock_version: number;
}

export const EventType = {
  Accepted: 'accepted',
  UpdateRequested: 'update_requested',
  DestroyRequested: 'destroy_requested',
  StepStarted: 'step_started',
  StepFinished: 'step_finished',
  RolloutProgress: 'rollout_progress',
  Ready: 'ready',
  Failed: 'failed',
  Superseded: 'superseded',
  Expired: 'expired',
  Destroyed: 'destroyed',
  /** A destroy went on without removing something outside the cluster (a topic refused the worker). */
  CleanupIncomplete: 'cleanup_incomplete',
  /** An operator sent the operation's dead job back to the queue (`svc admin dlq replay`), with a reason. */
  Replayed: 'replayed',
  /** Its forks scaled to zero after `sleep.after` idle. */
  Slept: 'slept',
  /** Its forks left zero, with the cause: a request, a message or a command. */
  Woke: 'woke',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/** Who an event says acted. `machine`: a machine token (so far only on `replayed`; other events name it as a user). */
export const EventActorKind = { User: 'user', Machine: 'machine', Forge: 'forge', System: 'system' } as const;
export type EventActorKind = (typeof EventActorKind)[keyof typeof EventActorKind];

export interface CompositionEvent {
  id: string;
  composition_id: string;
  type: EventType;
  at: string;
  actor: { kind: EventActorKind; subject: string };
  operation_id: string | null;
  generation: number;
  message: string;
  data: Record<string, unknown>;
}

/**
 * Whether a composition takes one of its project's live-composition places: those people ask for
 * do (while quotas are counted, i.e. outside dev mode); pull-request previews, which the project's
 * preview policy bounds, do not. The create takes the place and the write that finishes the
 * destroy gives it back, both by this rule, so the count never drifts.
 */
export function holdsQuotaPlace(record: Pick<CompositionRecord, 'owner'>): boolean {
  return record.owner.kind === OwnerKind.User;
}

/** The phase a composition reads as at `now`: past `expires_at` and not yet being destroyed, it is expired. */
export function effectivePhase(record: Pick<CompositionRecord, 'phase' | 'expires_at'>, now: Date): Phase {
  if (record.phase === Phase.Destroying || record.phase === Phase.Destroyed) return record.phase;
  return now.getTime() >= Date.parse(record.expires_at) ? Phase.Expired : record.phase;
}

/** Destroying or destroyed: what the composition made is going or gone. */
export function isTornDown(phase: Phase): boolean {
  return phase === Phase.Destroying || phase === Phase.Destroyed;
}

export function isExpired(record: Pick<CompositionRecord, 'phase' | 'expires_at'>, now: Date): boolean {
  return effectivePhase(record, now) === Phase.Expired;
}

/** `svc composition wait` (spec part 8): 30 s unless told, at most 60 s. */
export const waitLimits = { defaultSeconds: 30, maxSeconds: 60 } as const;
