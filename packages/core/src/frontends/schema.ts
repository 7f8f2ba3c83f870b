/**
 * Frontend bindings: a static frontend revision (the commit it was built from) bound to the
 * composition whose backend it runs against. `version` counts the binding's changes (bind to
 * another composition, publish) and guards them: publish and check name the version they saw.
 */
import * as v from 'valibot';
import { Phase } from '../compositions/model.ts';
import { Id } from '../names.ts';
import { frontendRevisionPattern, ResolveOutcome } from './model.ts';

export const FrontendRevision = v.pipe(
  v.string(),
  v.regex(frontendRevisionPattern, 'revision must be a full lowercase hex commit SHA (40 or 64 characters)'),
);

/** A binding's version, as a change names the one it saw. */
export const BindingVersion = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2 ** 31 - 1));

export const BindFrontendBody = v.strictObject({ composition_id: Id });
export type BindFrontendBody = v.InferOutput<typeof BindFrontendBody>;

/** The URL, or null when it is none (`v.url` reports that; the checks after it still run). */
const parsedUrl = (url: string) => (URL.canParse(url) ? new URL(url) : null);

export const PublishFrontendBody = v.strictObject({
  expected_version: BindingVersion,
  url: v.pipe(
    v.string(),
    v.maxLength(2048),
    v.url('url must be an absolute URL'),
    v.check((url) => {
      const parsed = parsedUrl(url);
      return parsed === null || /^https?:$/.test(parsed.protocol);
    }, 'url must be http or https'),
    v.check((url) => {
      const parsed = parsedUrl(url);
      return parsed === null || (parsed.username === '' && parsed.password === '');
    }, 'url must not carry credentials'),
  ),
});
export type PublishFrontendBody = v.InferOutput<typeof PublishFrontendBody>;

export const FrontendBindingView = v.object({
  project: v.string(),
  frontend: v.string(),
  revision: v.string(),
  composition_id: v.string(),
  version: v.number(),
  published: v.nullable(v.object({ url: v.string(), published_at: v.string(), published_by: v.string() })),
  bound_by: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
  /** The binding is forgotten after this (its composition's expiry plus retention). */
  expires_at: v.string(),
});
export type FrontendBinding = v.InferOutput<typeof FrontendBindingView>;

export const FrontendResolutionView = v.object({
  binding: FrontendBindingView,
  composition: v.nullable(
    v.object({
      id: v.string(),
      phase: v.enum(Phase),
      generation: v.number(),
      observed_generation: v.number(),
      url: v.string(),
      ready: v.boolean(),
    }),
  ),
  outcome: v.enum(ResolveOutcome),
  message: v.string(),
});
export type FrontendResolution = v.InferOutput<typeof FrontendResolutionView>;
