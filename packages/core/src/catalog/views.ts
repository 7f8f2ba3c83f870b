/** What the catalog read routes answer; the schemas feed the OpenAPI document. */
import * as v from 'valibot';
import { Baseline, ComponentProfile } from './manifest.ts';
import { logSelector, type ProjectVersion, type Revisioned } from './model.ts';

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

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function projectView(version: ProjectVersion): ProjectView {
  return {
    name: version.project,
    default_baseline: version.default_baseline,
    version: version.version,
    applied_at: version.applied_at,
    components: Object.keys(version.components).sort(byName),
    baselines: Object.keys(version.baselines).sort(byName),
  };
}

export function componentView(entry: Revisioned<ComponentProfile>): ComponentView {
  return { ...entry.spec, log_selector: logSelector(entry.spec), revision: entry.revision };
}

export function baselineView(entry: Revisioned<Baseline>): BaselineView {
  return { ...entry.spec, revision: entry.revision };
}
