/**
 * A pull request's preview, written over the `lock_version` read. While it waits for a build it
 * sits in gsi2 under its repository and head commit, so publishing that build finds it at once.
 */
import { Forge } from '@svc/core';
import * as v from 'valibot';
import {
  everyIn,
  type Item,
  indexPattern,
  itemSchema,
  type Key,
  readItem,
  recordEntries,
  timeOrdered,
} from './entity.ts';
import { repositoryKey } from './preview-policy.ts';

export const type = 'preview';

export const key = (id: string): Key => ({ pk: `PREVIEW#${id}`, sk: 'PREVIEW' });

/** Every preview, newest first. */
export const listed = everyIn('gsi1', 'PREVIEWS', {
  sort: (record: Pick<Forge.PreviewRecord, 'created_at' | 'id'>) => timeOrdered(record.created_at, record.id),
  newestFirst: true,
});

/** Sparse: the previews waiting for a build of one commit. */
export const waitingFor = indexPattern('gsi2', {
  partition: ({ repository, head_sha }: { repository: string; head_sha: string }) =>
    `FORGEWAIT#${repositoryKey(repository)}#${head_sha}`,
  sort: (record: Pick<Forge.PreviewRecord, 'id'>) => record.id,
  newestFirst: false,
});

export const toItem = (record: Forge.PreviewRecord): Item => ({
  ...key(record.id),
  item_type: type,
  ...record,
  ...listed.entry(record),
  ...(record.state === Forge.PreviewState.WaitingForBuild ? waitingFor.entry(record) : {}),
});

const nullableString = v.nullable(v.string());

const schema = itemSchema(
  type,
  recordEntries<Forge.PreviewRecord>()({
    id: v.string(),
    project: v.string(),
    repository: v.string(),
    number: v.number(),
    state: v.enum(Forge.PreviewState),
    head_sha: v.string(),
    // Unknown on items written before it was kept: the deployment's environment falls back to the number.
    head_ref: v.optional(v.string(), ''),
    fork: v.boolean(),
    builds: v.record(v.string(), v.string()),
    deployed_sha: nullableString,
    composition_id: nullableString,
    // Absent on items written before changes were acted on: a preview of its own.
    change_id: v.optional(nullableString, null),
    url: nullableString,
    expires_at: nullableString,
    last_error: v.nullable(v.object({ code: v.string(), message: v.string() })),
    suppressed: v.boolean(),
    restart_pending: v.boolean(),
    // Items written before each channel had its fingerprint hold one `fingerprint` for both: it is
    // dropped, and the next convergence writes both channels once more.
    feedback: v.object({
      comment_id: v.nullable(v.number()),
      comment_fingerprint: v.optional(nullableString, null),
      check_run_id: v.nullable(v.number()),
      check_run_sha: nullableString,
      check_run_fingerprint: v.optional(nullableString, null),
      // Unknown on items written before it was kept: the next change on the commit is a new run.
      check_run_open: v.optional(v.boolean(), false),
      // Items written before deployments were a channel have none.
      deployment_id: v.optional(v.nullable(v.number()), null),
      deployment_sha: v.optional(nullableString, null),
      deployment_fingerprint: v.optional(nullableString, null),
    }),
    poll_at: nullableString,
    created_at: v.string(),
    updated_at: v.string(),
    lock_version: v.number(),
  }),
);

export const fromItem = (item: Item): Forge.PreviewRecord => readItem(schema, item);
