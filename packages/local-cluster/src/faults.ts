// Fault injection for tests of the rest of the system: failing or slowing API requests (or gateway
// hops), closing watch streams, compacting watch history and freezing a workload's pods in Pending.
// Driven over HTTP at /_faults on the API server's port (see the README).

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api/errors.ts';
import type { AccessAttributes, AccessDecision, RequestInfo } from './api/http-server/context.ts';
import { sendError, sendJson } from './api/http-server/responses.ts';
import { isObject } from './api/json.ts';
import { labelMatcher } from './api/selectors.ts';
import type { Pod } from './api/types.ts';

export type FaultTarget = 'api' | 'gateway';

export interface FaultMatch {
  method?: string;
  verb?: string;
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  /** Prefix of the URL path (API) or of the request path (gateway). */
  path?: string;
  /** Gateway only: the Service a hop is sent to, or the request's Host for the first hop. */
  service?: string;
  host?: string;
}

interface RequestFault {
  id: string;
  type: 'fail' | 'latency';
  target: FaultTarget;
  status: number;
  ms: number;
  count: number | undefined;
  percent: number;
  match: FaultMatch;
  hits: number;
}

/** RBAC, simulated: matching requests get 403 and SelfSubjectAccessReviews for them answer denied. */
interface Denial {
  id: string;
  type: 'deny';
  match: FaultMatch;
  hits: number;
}

interface Freeze {
  id: string;
  type: 'freeze';
  namespace: string | undefined;
  selector: string;
  matches: (labels: Record<string, string> | undefined) => boolean;
}

export interface GatewayHop {
  method: string;
  path: string;
  host?: string | undefined;
  service?: string | undefined;
  namespace?: string | undefined;
}

export interface FaultHooks {
  closeWatches(resource: string | undefined): number;
  compact(): void;
  freezeChanged(): void;
}

const REASONS: Record<number, string> = {
  404: 'NotFound',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

function describe(rule: RequestFault | Denial | Freeze): Record<string, unknown> {
  if (rule.type === 'freeze')
    return { id: rule.id, type: rule.type, namespace: rule.namespace ?? null, selector: rule.selector };
  if (rule.type === 'deny') return { id: rule.id, type: rule.type, match: rule.match, hits: rule.hits };
  return {
    id: rule.id,
    type: rule.type,
    target: rule.target,
    ...(rule.type === 'fail' ? { status: rule.status } : { ms: rule.ms }),
    count: rule.count ?? null,
    percent: rule.percent,
    match: rule.match,
    hits: rule.hits,
  };
}

export class Faults {
  private readonly requests: RequestFault[] = [];
  private readonly denials: Denial[] = [];
  private readonly freezes: Freeze[] = [];
  private hooks: FaultHooks | undefined;

  connect(hooks: FaultHooks): void {
    this.hooks = hooks;
  }

  private take(
    target: FaultTarget,
    matcher: (m: FaultMatch) => boolean,
  ): { delay: number; fail: RequestFault | undefined } {
    let delay = 0;
    let fail: RequestFault | undefined;
    for (const rule of [...this.requests]) {
      if (rule.target !== target || !matcher(rule.match)) continue;
      if (rule.type === 'fail' && fail) continue;
      if (rule.percent < 100 && Math.random() * 100 >= rule.percent) continue;
      rule.hits++;
      if (rule.count !== undefined) {
        rule.count--;
        if (rule.count <= 0) this.requests.splice(this.requests.indexOf(rule), 1);
      }
      if (rule.type === 'latency') delay += rule.ms;
      else fail = rule;
    }
    return { delay, fail };
  }

  private denialFor(attributes: Omit<AccessAttributes, 'name'> & { name: string | undefined }) {
    const resource = attributes.subresource
      ? `${attributes.resource}/${attributes.subresource}`
      : attributes.resource;
    const eq = (want: string | undefined, got: string | undefined) => want === undefined || want === got;
    return this.denials.find(
      (d) =>
        eq(d.match.verb, attributes.verb) &&
        eq(d.match.group, attributes.group) &&
        eq(d.match.resource, resource) &&
        eq(d.match.namespace, attributes.namespace || undefined) &&
        eq(d.match.name, attributes.name || undefined),
    );
  }

  /** A SelfSubjectAccessReview's answer when a deny rule matches it; undefined leaves it allowed. */
  authorize(attributes: AccessAttributes): AccessDecision | undefined {
    const denial = this.denialFor(attributes);
    if (!denial) return undefined;
    denial.hits++;
    return { allowed: false, denied: true, reason: `denied by fault ${denial.id}` };
  }

  /** Hook for the API server: delays, and answers with an injected error instead of the real handler. */
  async beforeApiRequest(info: RequestInfo): Promise<ApiError | undefined> {
    if (info.resource !== undefined && this.denials.length > 0) {
      const denial = this.denialFor({
        verb: info.verb,
        group: info.group ?? '',
        resource: info.resource,
        subresource: info.subresource ?? '',
        namespace: info.namespace ?? '',
        name: info.name,
      });
      if (denial) {
        denial.hits++;
        const what = info.group ? `${info.resource}.${info.group}` : info.resource;
        return new ApiError(
          403,
          'Forbidden',
          `${what} is forbidden: User "local" cannot ${info.verb} resource "${info.resource}" (denied by fault ${denial.id})`,
        );
      }
    }
    if (this.requests.length === 0) return undefined;
    const { delay, fail } = this.take('api', (m) => {
      const eq = (want: string | undefined, got: string | undefined) => want === undefined || want === got;
      return (
        eq(m.method?.toUpperCase(), info.method.toUpperCase()) &&
        eq(m.verb, info.verb) &&
        eq(m.group, info.group) &&
        eq(m.resource, info.resource) &&
        eq(m.namespace, info.namespace) &&
        eq(m.name, info.name) &&
        (m.path === undefined || info.path.startsWith(m.path))
      );
    });
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (!fail) return undefined;
    const reason = REASONS[fail.status] ?? 'InternalError';
    const retry = fail.status === 429 || fail.status === 503 ? { retryAfterSeconds: 1 } : {};
    return new ApiError(fail.status, reason, `injected fault ${fail.id}: ${reason}`, retry);
  }

  /** Hook for the gateway, at the entry and at every service hop: may delay, or give a failure status. */
  async beforeGatewayHop(hop: GatewayHop): Promise<number | undefined> {
    if (this.requests.length === 0) return undefined;
    const { delay, fail } = this.take('gateway', (m) => {
      const eq = (want: string | undefined, got: string | undefined) => want === undefined || want === got;
      return (
        eq(m.method?.toUpperCase(), hop.method.toUpperCase()) &&
        eq(m.service, hop.service) &&
        eq(m.host, hop.host) &&
        eq(m.namespace, hop.namespace) &&
        (m.path === undefined || hop.path.startsWith(m.path))
      );
    });
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    return fail?.status;
  }

  isFrozen(pod: Pod): boolean {
    if (this.freezes.length === 0) return false;
    return this.freezes.some(
      (f) =>
        (f.namespace === undefined || f.namespace === pod.metadata.namespace) &&
        f.matches(pod.metadata.labels),
    );
  }

  add(body: unknown): Record<string, unknown> {
    if (!isObject(body) || typeof body.type !== 'string')
      throw badRequest('a fault needs a "type": fail, latency, deny, close-watches, compact or freeze');
    const id = randomUUID().slice(0, 8);
    switch (body.type) {
      case 'fail':
      case 'latency': {
        const status = body.status ?? 500;
        if (body.type === 'fail' && (typeof status !== 'number' || ![404, 429, 500, 503].includes(status))) {
          throw badRequest('"status" must be 404, 429, 500 or 503');
        }
        const ms = body.ms ?? 0;
        if (body.type === 'latency' && (typeof ms !== 'number' || ms < 0))
          throw badRequest('"ms" must be a non-negative number');
        const count = body.count;
        if (count !== undefined && (typeof count !== 'number' || !Number.isInteger(count) || count < 1)) {
          throw badRequest('"count" must be a positive integer');
        }
        const percent = body.percent ?? 100;
        if (typeof percent !== 'number' || percent <= 0 || percent > 100)
          throw badRequest('"percent" must be in (0, 100]');
        const target = body.target ?? 'api';
        if (target !== 'api' && target !== 'gateway') throw badRequest('"target" must be "api" or "gateway"');
        const match = isObject(body.match) ? (body.match as FaultMatch) : {};
        const rule: RequestFault = {
          id,
          type: body.type,
          target,
          status: typeof status === 'number' ? status : 500,
          ms: typeof ms === 'number' ? ms : 0,
          count: count as number | undefined,
          percent,
          match,
          hits: 0,
        };
        this.requests.push(rule);
        return describe(rule);
      }
      case 'deny': {
        if (!isObject(body.match))
          throw badRequest('a deny needs "match" (verb, group, resource, namespace, name)');
        const denial: Denial = { id, type: 'deny', match: body.match as FaultMatch, hits: 0 };
        this.denials.push(denial);
        return describe(denial);
      }
      case 'close-watches': {
        const resource = typeof body.resource === 'string' ? body.resource : undefined;
        return { type: 'close-watches', closed: this.hooks?.closeWatches(resource) ?? 0 };
      }
      case 'compact':
        this.hooks?.compact();
        return { type: 'compact' };
      case 'freeze': {
        const selector = typeof body.selector === 'string' ? body.selector : undefined;
        const component = typeof body.component === 'string' ? body.component : undefined;
        const effective = selector ?? (component ? `app.kubernetes.io/name=${component}` : undefined);
        if (!effective) throw badRequest('a freeze needs "selector" (a label selector) or "component"');
        const freeze: Freeze = {
          id,
          type: 'freeze',
          namespace: typeof body.namespace === 'string' ? body.namespace : undefined,
          selector: effective,
          matches: labelMatcher(effective),
        };
        this.freezes.push(freeze);
        return describe(freeze);
      }
      default:
        throw badRequest(`unknown fault type "${body.type}"`);
    }
  }

  list(): Record<string, unknown>[] {
    return [...this.requests, ...this.denials, ...this.freezes].map(describe);
  }

  remove(id: string | undefined): number {
    const count = () => this.requests.length + this.denials.length + this.freezes.length;
    const before = count();
    const hadFreeze = this.freezes.length > 0;
    const keep = (x: { id: string }) => id !== undefined && x.id !== id;
    this.requests.splice(0, this.requests.length, ...this.requests.filter(keep));
    this.denials.splice(0, this.denials.length, ...this.denials.filter(keep));
    this.freezes.splice(0, this.freezes.length, ...this.freezes.filter(keep));
    if (hadFreeze) this.hooks?.freezeChanged();
    return before - count();
  }

  /** The /_faults admin endpoint; returns false for other paths. */
  async handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean> {
    const path = new URL(req.url ?? '/', 'http://local').pathname.replace(/\/+$/, '');
    if (path !== '/_faults' && !path.startsWith('/_faults/')) return false;
    const id = path.startsWith('/_faults/') ? decodeURIComponent(path.slice('/_faults/'.length)) : undefined;
    try {
      if (req.method === 'GET' && !id) sendJson(res, 200, { faults: this.list() });
      else if (req.method === 'POST' && !id) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          throw badRequest('the fault must be a JSON object');
        }
        sendJson(res, 201, this.add(parsed));
      } else if (req.method === 'DELETE') {
        const removed = this.remove(id);
        if (id && removed === 0) throw new ApiError(404, 'NotFound', `fault "${id}" not found`);
        sendJson(res, 200, { removed });
      } else throw new ApiError(405, 'MethodNotAllowed', 'use GET, POST or DELETE on /_faults');
    } catch (error) {
      if (error instanceof ApiError) sendError(res, error);
      else throw error;
    }
    return true;
  }
}
