/** What the catalog read routes answer; the schemas feed the OpenAPI document. */
import * as v from 'valibot';
import { Baseline, ComponentProfile } from './manifest.ts';
import { logSelector, type Revisioned } from './model.ts';

export const ProjectView = v.object({
  name: v.string(),
  default_baseline: v.string(),
  version: v.number(),
  applied_at: v.string(),
  components: v.array(v.string()),
  baselines: v.array(v.string()),
});
export type ProjectView = v.InferOutput<typeof ProjectView>;

export const ComponentView = v.object({
  ...v.omit(ComponentProfile, ['log_selector']).entries,
  log_selector: v.record(v.string(), v.string()),
  revision: v.number(),
});
export type ComponentView = v.InferOutput<typeof ComponentView>;

export const BaselineView = v.object({ ...Baseline.entries, revision: v.number() });
export type BaselineView = v.InferOutput<typeof BaselineView>;

export function componentView(entry: Revisioned<ComponentProfile>): ComponentView {
  return { ...entry.spec, log_selector: logSelector(entry.spec), revision: entry.revision };
}

export function baselineView(entry: Revisioned<Baseline>): BaselineView {
  return { ...entry.spec, revision: entry.revision };
}
