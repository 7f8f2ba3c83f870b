// The HTTPRoute engine shared by the public gateway (routes attached to a Gateway, matched on Host)
// and the mesh (GAMMA routes attached to a Service): matches, precedence, filters and weighted
// backend choice, following the Gateway API specification.

import { isObject } from '../api/json.ts';
import type { KubeObject } from '../api/types.ts';

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';

export interface ParentRef {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  sectionName?: string;
  port?: number;
}

interface HeaderMatch {
  type?: 'Exact' | 'RegularExpression';
  name: string;
  value: string;
}

interface RouteMatch {
  path?: { type?: 'Exact' | 'PathPrefix' | 'RegularExpression'; value?: string };
  headers?: HeaderMatch[];
  queryParams?: HeaderMatch[];
  method?: string;
}

interface HeaderChanges {
  set?: { name: string; value: string }[];
  add?: { name: string; value: string }[];
  remove?: string[];
}

export interface RouteFilter {
  type: string;
  requestHeaderModifier?: HeaderChanges;
  responseHeaderModifier?: HeaderChanges;
  urlRewrite?: {
    hostname?: string;
    path?: {
      type: 'ReplaceFullPath' | 'ReplacePrefixMatch';
      replaceFullPath?: string;
      replacePrefixMatch?: string;
    };
  };
  requestRedirect?: {
    scheme?: string;
    hostname?: string;
    port?: number;
    statusCode?: number;
    path?: { type: string; replaceFullPath?: string; replacePrefixMatch?: string };
  };
}

export interface BackendRef {
  group?: string;
  kind?: string;
  name: string;
  namespace?: string;
  port?: number;
  weight?: number;
  filters?: RouteFilter[];
}

interface RouteRule {
  matches?: RouteMatch[];
  filters?: RouteFilter[];
  backendRefs?: BackendRef[];
}

export interface HTTPRoute extends KubeObject {
  spec: { parentRefs?: ParentRef[]; hostnames?: string[]; rules?: RouteRule[] };
}

export interface RoutedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
}

export interface RouteDecision {
  route: HTTPRoute;
  rule: RouteRule;
  match: RouteMatch;
}

function parentGroup(ref: ParentRef): string {
  return ref.group ?? GATEWAY_GROUP;
}

function parentKind(ref: ParentRef): string {
  return ref.kind ?? 'Gateway';
}

export function isServiceParent(ref: ParentRef): boolean {
  return parentKind(ref) === 'Service' && (ref.group === '' || ref.group === 'core');
}

export function isGatewayParent(ref: ParentRef): boolean {
  return parentKind(ref) === 'Gateway' && parentGroup(ref) === GATEWAY_GROUP;
}

export function hostnameMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return p === host;
}

/**
 * Compiled expressions, kept with the (frozen) match that holds them: they go when the route is
 * replaced or deleted. A cache by pattern kept one per preview ever routed.
 */
const compiled = new WeakMap<object, RegExp | null>();

/** Full-match regular expressions, as Envoy-based implementations (Istio) evaluate them. */
function fullMatch(holder: { value?: string }, value: string): boolean {
  let re = compiled.get(holder);
  if (re === undefined) {
    try {
      re = new RegExp(`^(?:${holder.value ?? ''})$`);
    } catch {
      re = null;
    }
    compiled.set(holder, re);
  }
  return re ? re.test(value) : false;
}

function pathMatches(match: RouteMatch, path: string): boolean {
  const type = match.path?.type ?? 'PathPrefix';
  const value = match.path?.value ?? '/';
  if (type === 'Exact') return path === value;
  if (type === 'RegularExpression') return fullMatch(match.path ?? {}, path);
  if (value === '/' || value === '') return true;
  const prefix = value.endsWith('/') ? value.slice(0, -1) : value;
  return path === prefix || path.startsWith(`${prefix}/`);
}

function valueMatches(m: HeaderMatch, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  return (m.type ?? 'Exact') === 'RegularExpression' ? fullMatch(m, actual) : actual === m.value;
}

function matches(match: RouteMatch, req: RoutedRequest): boolean {
  if (!pathMatches(match, req.path)) return false;
  if (match.method && match.method.toUpperCase() !== req.method.toUpperCase()) return false;
  for (const h of match.headers ?? []) if (!valueMatches(h, req.headers[h.name.toLowerCase()])) return false;
  for (const q of match.queryParams ?? [])
    if (!valueMatches(q, req.query.get(q.name) ?? undefined)) return false;
  return true;
}

function rules(route: HTTPRoute): RouteRule[] {
  return Array.isArray(route.spec?.rules) ? route.spec.rules : [];
}

/** Precedence per the Gateway API: exact path, longest prefix, method, most header then query matches, oldest route. */
function rank(d: RouteDecision, hostScore: number): (number | string)[] {
  const type = d.match.path?.type ?? 'PathPrefix';
  const value = d.match.path?.value ?? '/';
  return [
    -hostScore,
    type === 'Exact' ? 0 : type === 'PathPrefix' ? 1 : 2,
    type === 'PathPrefix' ? -value.length : 0,
    d.match.method ? 0 : 1,
    -(d.match.headers?.length ?? 0),
    -(d.match.queryParams?.length ?? 0),
    d.route.metadata.creationTimestamp ?? '',
    `${d.route.metadata.namespace}/${d.route.metadata.name}`,
    rules(d.route).indexOf(d.rule),
  ];
}

function compare(a: (number | string)[], b: (number | string)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/** The winning rule among `routes` for `req`; `hostScore` ranks a route's hostname match (exact over wildcard). */
export function selectRule(
  routes: readonly HTTPRoute[],
  req: RoutedRequest,
  hostScore: (route: HTTPRoute) => number = () => 0,
): RouteDecision | undefined {
  let best: { d: RouteDecision; key: (number | string)[] } | undefined;
  for (const route of routes) {
    const score = hostScore(route);
    for (const rule of rules(route)) {
      const list = rule.matches && rule.matches.length > 0 ? rule.matches : [{}];
      for (const match of list) {
        if (!matches(match, req)) continue;
        const d = { route, rule, match };
        const key = rank(d, score);
        if (!best || compare(key, best.key) < 0) best = { d, key };
      }
    }
  }
  return best?.d;
}

export function pickBackend(rule: RouteRule, random: () => number = Math.random): BackendRef | undefined {
  const refs = (rule.backendRefs ?? []).filter((r) => (r.weight ?? 1) > 0);
  const total = refs.reduce((n, r) => n + (r.weight ?? 1), 0);
  if (total <= 0) return undefined;
  let point = random() * total;
  for (const ref of refs) {
    point -= ref.weight ?? 1;
    if (point < 0) return ref;
  }
  return refs[refs.length - 1];
}

export function applyHeaderChanges(
  headers: Record<string, string>,
  changes: HeaderChanges | undefined,
): void {
  if (!changes) return;
  for (const h of changes.set ?? []) headers[h.name.toLowerCase()] = h.value;
  for (const h of changes.add ?? []) {
    const key = h.name.toLowerCase();
    headers[key] = headers[key] === undefined ? h.value : `${headers[key]},${h.value}`;
  }
  for (const name of changes.remove ?? []) delete headers[name.toLowerCase()];
}

/** The `preview-route` member of a W3C baggage header, or null. */
export function routingKey(baggage: string | undefined): string | null {
  if (!baggage) return null;
  for (const member of baggage.split(',')) {
    const [pair] = member.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (!pair || eq < 0) continue;
    if (pair.slice(0, eq).trim() !== 'preview-route') continue;
    try {
      return decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      return pair.slice(eq + 1).trim();
    }
  }
  return null;
}

export function asRoute(object: KubeObject): HTTPRoute {
  const spec = isObject(object.spec) ? object.spec : {};
  return { ...object, spec } as HTTPRoute;
}

/**
 * Whether a route in one namespace may send to Service `name` in `namespace`: the same namespace, or
 * a ReferenceGrant there from HTTPRoutes of the route's namespace to Services (all, or that one by
 * name), as the Gateway API requires of every cross-namespace backendRef.
 */
export function referenceGranted(
  grants: readonly KubeObject[],
  route: HTTPRoute,
  namespace: string,
  name: string,
): boolean {
  if (namespace === (route.metadata.namespace ?? 'default')) return true;
  return grants.some((grant) => {
    const spec = isObject(grant.spec)
      ? (grant.spec as {
          from?: { group?: string; kind?: string; namespace?: string }[];
          to?: { group?: string; kind?: string; name?: string }[];
        })
      : {};
    const from = (spec.from ?? []).some(
      (f) => f.group === GATEWAY_GROUP && f.kind === 'HTTPRoute' && f.namespace === route.metadata.namespace,
    );
    const to = (spec.to ?? []).some(
      (t) => (t.group ?? '') === '' && t.kind === 'Service' && (t.name === undefined || t.name === name),
    );
    return from && to;
  });
}
