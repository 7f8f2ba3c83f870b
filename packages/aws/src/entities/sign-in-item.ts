/**
 * The items of signing in: sessions, CLI sign-ins and their codes and tokens, pending sign-ins.
 * Each lives until its `expires_at`. All but a CLI sign-in are keyed by the SHA-256 (`hash`) of a
 * secret the client holds, never the secret itself. Sessions and CLI sign-ins are also listed per
 * person in gsi1, so a person's sign-ins list without a scan.
 */
import type * as v from 'valibot';
import { epochSeconds, type Item, indexPattern, itemSchema, type Key, readItem } from './entity.ts';

/** A person's sessions and CLI sign-ins by id, newest first (ids sort by time). */
export const ofPerson = indexPattern('gsi1', {
  partition: ({ user_id }: { user_id: string }) => `SIGNINS#${user_id}`,
  sort: (record: { user_id: string; id: string }) => record.id,
  newestFirst: true,
});

export function signInItem<TRecord extends { expires_at: string }>() {
  return <const TType extends string, const TEntries extends v.ObjectEntries>(layout: {
    type: TType;
    key: (hash: string) => Key;
    entries: TEntries;
    /** Index entries of the item. */
    listed?: (record: TRecord) => Item;
  }) => {
    const schema = itemSchema(layout.type, layout.entries);
    return {
      type: layout.type,
      key: layout.key,
      toItem: (hash: string, record: TRecord): Item => ({
        ...layout.key(hash),
        ...layout.listed?.(record),
        item_type: layout.type,
        ...record,
        ttl: epochSeconds(record.expires_at),
      }),
      fromItem: (item: Item) => readItem(schema, item),
    };
  };
}
