import * as v from 'valibot';
import type { Identity } from '../auth/identity.ts';
import { compositionSelector } from '../cluster/render.ts';
import type { CompositionRecord } from '../compositions/model.ts';
import { requireComposition } from '../compositions/reads.ts';
import type { InsightDeps } from './ports.ts';

export const ObservabilityView = v.object({
  composition_id: v.string(),
  links: v.array(v.object({ name: v.string(), component: v.nullable(v.string()), url: v.string() })),
});
export type ObservabilityView = v.InferOutput<typeof ObservabilityView>;

/** Only http(s) links are handed out: the catalog refuses other schemes, and so does this, for what it stored earlier. */
export function isWebLink(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The baseline's link templates resolved for this composition. Placeholders: `{composition_id}`,
 * `{project}`, `{baseline}`, `{namespace}`, `{label_selector}`, `{from}`, `{to}` (ISO times of the
 * composition's life so far) and `{component}` (one link per component of the baseline).
 */
export async function observability(
  deps: InsightDeps,
  caller: Identity,
  id: string,
): Promise<ObservabilityView> {
  const record = await requireComposition(deps, caller, id, 'composition:read');
  const catalog = await deps.catalog.readProject(record.project);
  const baseline = catalog?.baselines[record.baseline]?.spec;
  const values = placeholderValues(record, deps.clock.now().toISOString());
  const fill = (template: string, extra: Record<string, string>) =>
    template.replace(/\{([a-z_]+)\}/g, (whole, key: string) => {
      const value = extra[key] ?? values[key];
      return value === undefined ? whole : encodeURIComponent(value);
    });
  const links: ObservabilityView['links'] = [];
  for (const [name, template] of Object.entries(baseline?.observability ?? {}).sort()) {
    if (template.includes('{component}')) {
      for (const component of Object.keys(baseline?.components ?? {}).sort()) {
        links.push({ name, component, url: fill(template, { component }) });
      }
    } else {
      links.push({ name, component: null, url: fill(template, {}) });
    }
  }
  return { composition_id: id, links: links.filter((link) => isWebLink(link.url)) };
}

function placeholderValues(record: CompositionRecord, now: string): Record<string, string> {
  const end =
    [record.destroyed_at, record.expires_at, now].filter((t): t is string => t !== null).sort()[0] ?? now;
  return {
    composition_id: record.id,
    project: record.project,
    baseline: record.baseline,
    namespace: record.namespace,
    label_selector: compositionSelector(record.id),
    from: record.created_at,
    to: end,
  };
}
