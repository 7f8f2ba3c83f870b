/**
 * A composition. Everything of one composition (its operations, events and checks) shares its
 * partition. It is listed until destroyed, waits in the expiry queue until its destroy starts, and
 * is kept 30 days once destroyed.
 */
import { Compositions, Operations } from '@svc/core';
import * as v from 'valibot';
import {
  DueQueue,
  dueQueue,
  everyIn,
  expiresAfter,
  type Item,
  indexPattern,
  itemSchema,
  type Key,
  readItem,
  recordEntries,
  timeOrdered,
} from './entity.ts';

const { Phase } = Compositions;

export const type = 'composition';

/** How long a destroyed composition and its finished operations are kept. */
export const retentionSeconds = 30 * 24 * 3600;

export const partitionOf = (id: string) => `COMP#${id}`;

export const key = (id: string): Key => ({ pk: partitionOf(id), sk: 'COMP' });

type Listed = Pick<Compositions.CompositionRecord, 'id' | 'project' | 'created_at'>;
const created = (record: Listed) => timeOrdered(record.created_at, record.id);

/** Every composition not destroyed, newest first. */
export const listed = everyIn('gsi1', 'COMPS', { sort: created, newestFirst: true });

/** The compositions of one project not destroyed, newest first; several projects' read as one list. */
export const ofProject = indexPattern('gsi2', {
  partition: ({ project }: { project: string }) => `COMPS#${project}`,
  sort: created,
  newestFirst: true,
});

/** The expiry sweep's queue: a composition waits in it until `expires_at`, or until its destroy starts. */
export const expiring = dueQueue(DueQueue.Expiry);

/** Index entries exist only while the composition belongs in that index. */
export function toItem(record: Compositions.CompositionRecord): Item {
  const isListed = record.phase !== Phase.Destroyed;
  const waitsForExpiry = record.phase !== Phase.Destroying && record.phase !== Phase.Destroyed;
  return {
    ...key(record.id),
    item_type: type,
    ...record,
    ...(isListed ? { ...listed.entry(record), ...ofProject.entry(record) } : {}),
    ...(waitsForExpiry ? expiring.entry(record.expires_at, record.id) : {}),
    ...(record.destroyed_at ? expiresAfter(record.destroyed_at, retentionSeconds) : {}),
  };
}

export const owner = v.object({ kind: v.enum(Operations.OwnerKind), subject: v.string() });

const blocker = v.object({ code: v.string(), message: v.string(), component: v.nullable(v.string()) });

const storedPhase = v.picklist([
  Phase.Created,
  Phase.Provisioning,
  Phase.Ready,
  Phase.Failed,
  Phase.Updating,
  Phase.Destroying,
  Phase.Destroyed,
]);

const schema = itemSchema(
  type,
  recordEntries<Compositions.CompositionRecord>()({
    id: v.string(),
    project: v.string(),
    baseline: v.string(),
    namespace: v.string(),
    // Absent on items written before clusters were named.
    cluster: v.exactOptional(v.string()),
    name: v.string(),
    owner,
    generation: v.number(),
    observed_generation: v.number(),
    phase: storedPhase,
    ttl_seconds: v.number(),
    expires_at: v.string(),
    created_at: v.string(),
    updated_at: v.string(),
    message_isolation: v.boolean(),
    overrides: v.record(
      v.string(),
      v.object({ image: v.nullable(v.string()), build_id: v.nullable(v.string()) }),
    ),
    desired: v.object({
      images: v.record(
        v.string(),
        v.object({
          image: v.string(),
          source: v.picklist(['image', 'build']),
          build_id: v.nullable(v.string()),
          digest: v.nullable(v.string()),
        }),
      ),
      inherited: v.array(v.string()),
      profile_revisions: v.record(v.string(), v.number()),
      catalog_version: v.number(),
      catalog_version_id: v.string(),
    }),
    observed: v.object({
      components: v.record(
        v.string(),
        v.object({ image: v.string(), ready: v.boolean(), generation: v.number() }),
      ),
      blockers: v.array(blocker),
      updated_at: v.nullable(v.string()),
    }),
    public_url: v.string(),
    public_ready: v.boolean(),
    latest_operation: v.object({
      id: v.string(),
      kind: v.enum(Operations.OperationKind),
      status: v.enum(Operations.OperationStatus),
    }),
    active_operation: v.nullable(v.string()),
    epoch: v.number(),
    message_subscriptions: v.nullable(
      v.array(
        v.object({
          component: v.string(),
          topic: v.string(),
          queue_url: v.nullable(v.string()),
          ready: v.boolean(),
        }),
      ),
    ),
    sleep: v.optional(
      v.nullable(
        v.object({
          after_seconds: v.number(),
          state: v.enum(Compositions.SleepState),
          since: v.string(),
          awake_until: v.optional(v.nullable(v.string()), null),
        }),
      ),
    ),
    destroyed_at: v.nullable(v.string()),
    lock_version: v.number(),
  }),
);

export const fromItem = (item: Item): Compositions.CompositionRecord => readItem(schema, item);
