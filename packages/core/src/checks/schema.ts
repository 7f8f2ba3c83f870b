/** The bodies a check is recorded with, and a check as the verification list answers it. */
import * as v from 'valibot';
import { BindingVersion } from '../frontends/schema.ts';
import { pageSchema } from '../paging.ts';
import { CheckKind, CheckStatus, Coverage, Freshness } from './model.ts';

const status = v.picklist([CheckStatus.Passed, CheckStatus.Failed], 'status must be passed or failed');
const message = v.pipe(v.string(), v.minLength(1, 'message must not be empty'), v.maxLength(1024));
/** The composition generation the result was found against. */
const compositionGeneration = v.pipe(v.number(), v.integer(), v.minValue(1));

/** A test result: CI ran its tests against the preview URL. */
export const CompositionCheckBody = v.strictObject({
  /** The composition generation the tests ran against. */
  composition_generation: compositionGeneration,
  status,
  message,
});
export type CompositionCheckBody = v.InferOutput<typeof CompositionCheckBody>;

/** A frontend check: the frontend revision bound to the composition was checked against it. */
export const FrontendCheckBody = v.strictObject({
  /** The binding's version the check ran for. */
  expected_version: BindingVersion,
  /** The composition generation the frontend was checked against. */
  composition_generation: compositionGeneration,
  status,
  message,
});
export type FrontendCheckBody = v.InferOutput<typeof FrontendCheckBody>;

export const CheckView = v.object({
  id: v.string(),
  composition_id: v.string(),
  kind: v.enum(CheckKind),
  generation: v.number(),
  status: v.enum(CheckStatus),
  message: v.string(),
  ran_at: v.string(),
  target: v.nullable(v.string()),
  http_status: v.nullable(v.number()),
  coverage: v.record(v.string(), v.enum(Coverage)),
  frontend: v.nullable(v.object({ name: v.string(), revision: v.string(), version: v.number() })),
  freshness: v.enum(Freshness),
  stale_reasons: v.array(v.string()),
});
export type CheckView = v.InferOutput<typeof CheckView>;
export const CheckList = pageSchema(CheckView);
