import { formatDuration } from '../duration.ts';
import { type CompositionRecord, effectivePhase } from './model.ts';
import type { CompositionEndpointsView, CompositionStatusView, CompositionView } from './schema.ts';

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
