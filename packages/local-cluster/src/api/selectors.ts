// Label selectors (string syntax of `?labelSelector=` and the structured form in specs) and field
// selectors. A malformed selector is a 400, as on a real API server.

import { badRequest } from './errors.ts';
import { getPath } from './json.ts';
import type { KubeObject, LabelSelector } from './types.ts';

type Labels = Readonly<Record<string, string>> | undefined;

export type Requirement =
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'in' | 'notin'; values: readonly string[] }
  | { key: string; op: 'gt' | 'lt'; value: number };

export type LabelMatcher = (labels: Labels) => boolean;

function matchesRequirements(requirements: readonly Requirement[], labels: Labels): boolean {
  return requirements.every((r) => {
    const value = labels?.[r.key];
    switch (r.op) {
      case 'exists':
        return value !== undefined;
      case 'notexists':
        return value === undefined;
      case 'in':
        return value !== undefined && r.values.includes(value);
      case 'notin':
        return value === undefined || !r.values.includes(value);
      case 'gt':
      case 'lt': {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        return r.op === 'gt' ? Number(value) > r.value : Number(value) < r.value;
      }
    }
    return false;
  });
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, selector: string): string {
  if (!KEY.test(key) || key.length > 316)
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!VALUE.test(value) || value.length > 63)
    throw badRequest(`unable to parse requirement: invalid label value "${value}" in selector "${selector}"`);
  return value;
}

/** Splits on commas that are not inside a parenthesised value list. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

const NOT_EXISTS = /^!\s*([^\s=!<>(),]+)$/;
const SET = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/;
const EQUALITY = /^([^\s=!<>(),]+)\s*(==|=|!=)\s*([^\s=!<>(),]*)$/;
const NUMERIC = /^([^\s=!<>(),]+)\s*(>|<)\s*(-?\d+)$/;
const EXISTS = /^([^\s=!<>(),]+)$/;

function parseRequirement(part: string, selector: string): Requirement {
  const notExists = NOT_EXISTS.exec(part);
  if (notExists) return { key: checkKey(notExists[1] ?? '', selector), op: 'notexists' };
  const set = SET.exec(part);
  if (set) {
    const values = (set[3] ?? '').split(',').map((v) => checkValue(v.trim(), selector));
    return { key: checkKey(set[1] ?? '', selector), op: set[2] === 'in' ? 'in' : 'notin', values };
  }
  const equality = EQUALITY.exec(part);
  if (equality) {
    const key = checkKey(equality[1] ?? '', selector);
    const value = checkValue(equality[3] ?? '', selector);
    return { key, op: equality[2] === '!=' ? 'notin' : 'in', values: [value] };
  }
  const numeric = NUMERIC.exec(part);
  if (numeric)
    return {
      key: checkKey(numeric[1] ?? '', selector),
      op: numeric[2] === '>' ? 'gt' : 'lt',
      value: Number(numeric[3]),
    };
  const exists = EXISTS.exec(part);
  if (exists) return { key: checkKey(exists[1] ?? '', selector), op: 'exists' };
  throw badRequest(`unable to parse requirement: "${part}" in selector "${selector}"`);
}

export function parseLabelSelector(selector: string): Requirement[] {
  const text = selector.trim();
  if (text === '') return [];
  const requirements: Requirement[] = [];
  for (const rawPart of splitTopLevel(text)) {
    const part = rawPart.trim();
    if (part === '')
      throw badRequest(
        `unable to parse requirement: found '', expected: identifier in selector "${selector}"`,
      );
    requirements.push(parseRequirement(part, selector));
  }
  return requirements;
}

export function labelMatcher(selector: string | undefined): LabelMatcher {
  return requirementsMatcher(parseLabelSelector(selector ?? ''));
}

export function requirementsMatcher(requirements: readonly Requirement[]): LabelMatcher {
  if (requirements.length === 0) return () => true;
  return (labels) => matchesRequirements(requirements, labels);
}

/** Requirements of a structured selector; an empty selector matches everything, as in a Deployment. */
export function requirementsOf(selector: LabelSelector | undefined): Requirement[] {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {}))
    out.push({ key, op: 'in', values: [value] });
  for (const e of selector?.matchExpressions ?? []) {
    if (e.operator === 'Exists') out.push({ key: e.key, op: 'exists' });
    else if (e.operator === 'DoesNotExist') out.push({ key: e.key, op: 'notexists' });
    else out.push({ key: e.key, op: e.operator === 'In' ? 'in' : 'notin', values: e.values ?? [] });
  }
  return out;
}

export function selectorMatches(selector: LabelSelector | undefined, labels: Labels): boolean {
  return matchesRequirements(requirementsOf(selector), labels);
}

/** The string form, as a Scale's `status.selector` carries it. */
export function formatSelector(selector: LabelSelector | undefined): string {
  return requirementsOf(selector)
    .map((r) => {
      switch (r.op) {
        case 'exists':
          return r.key;
        case 'notexists':
          return `!${r.key}`;
        case 'in':
          return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${r.values.join(',')})`;
        case 'notin':
          return `${r.key} notin (${r.values.join(',')})`;
        case 'gt':
          return `${r.key}>${r.value}`;
        case 'lt':
          return `${r.key}<${r.value}`;
      }
      return '';
    })
    .join(',');
}

interface FieldRequirement {
  path: readonly string[];
  field: string;
  equal: boolean;
  value: string;
}

export type FieldMatcher = (object: KubeObject) => boolean;

function splitEscaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === '\\' && i + 1 < text.length) {
      current += c + (text[i + 1] ?? '');
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function unescapeFieldValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/**
 * Field selectors address any scalar field by its dotted path (`metadata.name`, `status.phase`,
 * `involvedObject.uid`…). A real server allows only a few fields per type; accepting every path is
 * a deliberate superset.
 */
function parseFieldSelector(selector: string): FieldRequirement[] {
  const text = selector.trim();
  if (text === '') return [];
  return splitEscaped(text, ',').map((part) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/s.exec(part.trim());
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const field = (m[1] ?? '').trim();
    if (!/^[A-Za-z0-9_.-]+$/.test(field)) throw badRequest(`"${field}" is not a known field selector`);
    return { path: field.split('.'), field, equal: m[2] !== '!=', value: unescapeFieldValue(m[3] ?? '') };
  });
}

function fieldValue(object: KubeObject, path: readonly string[]): string {
  const value = getPath(object, path);
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function fieldMatcher(selector: string | undefined): FieldMatcher {
  const requirements = parseFieldSelector(selector ?? '');
  if (requirements.length === 0) return () => true;
  return (object) => requirements.every((r) => (fieldValue(object, r.path) === r.value) === r.equal);
}
