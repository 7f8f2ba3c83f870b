/**
 * Form fields ⇄ use-case bodies. The forms send strings; the bodies are what the REST routes take,
 * validated by the same core schemas and rules, so a form can say nothing the API would not.
 */
import { bodyProblems, Compositions, ErrorCode, Insight, ProblemError, validationFailed } from '@svc/core';

export type Fields = Record<string, string>;

export interface OverrideRow {
  component: string;
  image: string;
  build_id: string;
}

/** The override rows of a form: `override_component_<n>`, `override_image_<n>`, `override_build_id_<n>`. */
export function overrideRows(fields: Fields): OverrideRow[] {
  const rows: OverrideRow[] = [];
  for (let n = 0; n < Compositions.maxOverrides; n++) {
    rows.push({
      component: (fields[`override_component_${n}`] ?? '').trim(),
      image: (fields[`override_image_${n}`] ?? '').trim(),
      build_id: (fields[`override_build_id_${n}`] ?? '').trim(),
    });
  }
  return rows;
}

/**
 * Rows with a component chosen become overrides; an empty selector is left out for the planner to
 * name. Own entries (never `obj[key] =`), so a component named `__proto__` is a key the body check
 * sees, not a prototype.
 */
function overridesOf(fields: Fields): Record<string, { image?: string; build_id?: string }> {
  return Object.fromEntries(
    overrideRows(fields)
      .filter((row) => row.component)
      .map((row) => [
        row.component,
        { ...(row.image ? { image: row.image } : {}), ...(row.build_id ? { build_id: row.build_id } : {}) },
      ]),
  );
}

/** The check every JSON body passes before a route sees it: reserved keys are refused, naming them. */
function checked<T extends Record<string, unknown>>(body: T): T {
  const { reserved } = bodyProblems(body);
  if (reserved.length) throw validationFailed(reserved);
  return body;
}

export function createBody(fields: Fields): Record<string, unknown> {
  const ttl = (fields.ttl ?? '').trim();
  const baseline = (fields.baseline ?? '').trim();
  return checked({
    project: (fields.project ?? '').trim(),
    // Empty: the project's default baseline, which the service picks.
    ...(baseline ? { baseline } : {}),
    name: (fields.name ?? '').trim(),
    overrides: overridesOf(fields),
    ...(ttl ? { ttl } : {}),
    message_isolation: fields.message_isolation === 'on',
  });
}

export function updateBody(fields: Fields): Record<string, unknown> {
  const generation = fields.expected_generation ?? '';
  return checked({
    expected_generation: /^\d{1,10}$/.test(generation) ? Number(generation) : generation,
    overrides: overridesOf(fields),
  });
}

/** The form fields showing a composition's current overrides, for the update form. */
export function fieldsOf(view: Compositions.CompositionView): Fields {
  const fields: Fields = { expected_generation: String(view.generation) };
  Object.entries(view.overrides).forEach(([component, override], n) => {
    fields[`override_component_${n}`] = component;
    fields[`override_image_${n}`] = override.image ?? '';
    fields[`override_build_id_${n}`] = override.build_id ?? '';
  });
  return fields;
}

type LogQuery = Parameters<typeof Insight.componentLogs>[4];

function boundedInteger(raw: string | undefined, name: string, max: number): number | null {
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw);
  if (!/^\d{1,10}$/.test(raw.trim()) || value < 1 || value > max) {
    const message = `must be a whole number from 1 to ${max}`;
    throw new ProblemError(ErrorCode.InvalidQuery, `${name}: ${message}`, {
      errors: [{ path: name, message }],
    });
  }
  return value;
}

/** The logs form: tail lines, since seconds and previous, bounded as the logs route bounds them. */
export function logQuery(query: Record<string, string | undefined>): LogQuery {
  const { tailLines, sinceSeconds, maxBytes } = Insight.logLimits;
  return {
    tail_lines: boundedInteger(query.tail_lines, 'tail_lines', tailLines.max) ?? tailLines.default,
    since_seconds: boundedInteger(query.since_seconds, 'since_seconds', sinceSeconds.max),
    max_bytes: maxBytes.default,
    previous: query.previous === 'on' || query.previous === 'true',
  };
}
