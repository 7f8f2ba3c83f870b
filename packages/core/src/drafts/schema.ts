/**
 * Onboarding drafts (spec 2.6): resumable, non-secret work in progress towards a catalog entry.
 * One per installation, project and author; `revision` guards every write (0 creates). A draft
 * registers nothing, approves nothing and creates no preview: nothing reads it but its author.
 */
import * as v from 'valibot';
import { ResourceName } from '../names.ts';

const label = (what: string) =>
  v.pipe(
    v.string(`${what} must be a string`),
    v.regex(
      /^[a-z][a-z0-9_-]{0,62}$/,
      `${what} must start with a letter and hold at most 63 of a-z, 0-9, '_' and '-'`,
    ),
  );

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A JSON object (valibot's record alone would take an array as one). */
const jsonObject = <TKey extends v.GenericSchema<string, string>>(key: TKey, what: string) =>
  v.pipe(
    v.custom<Record<string, unknown>>(isJsonObject, `${what} must be a JSON object`),
    v.record(key, v.unknown()),
  );

export const DraftBody = v.strictObject({
  project: ResourceName,
  /** The revision the caller last read; 0 creates the draft. */
  revision: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 31 - 1)),
  /** Where in onboarding the author is, e.g. `workloads`, `baseline`, `review`. */
  stage: label('stage'),
  /** The non-secret configuration gathered so far; its inner structure is the client's. */
  configuration: jsonObject(v.string(), 'configuration'),
  /** Named selections (workloads, a repository…), each any JSON value. */
  selections: v.optional(jsonObject(label('selection name'), 'selections'), {}),
});
export type DraftBody = v.InferOutput<typeof DraftBody>;

export const DraftView = v.object({
  project: v.string(),
  /** Whose draft: the identity's author (shared-token and anonymous modes share one). */
  author: v.string(),
  revision: v.number(),
  stage: v.string(),
  configuration: v.record(v.string(), v.unknown()),
  selections: v.record(v.string(), v.unknown()),
  created_at: v.string(),
  updated_at: v.string(),
  /** When the draft is discarded unless saved again. */
  expires_at: v.string(),
});
export type Draft = v.InferOutput<typeof DraftView>;
