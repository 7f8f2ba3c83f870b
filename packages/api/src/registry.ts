/**
 * Routes are declared once: the declaration registers the Hono handler and describes the route in
 * the OpenAPI document, so the two cannot disagree.
 */
import { Auth, ErrorCode, errorCatalog, isDnsLabel } from '@svc/core';
import type { Context, Hono } from 'hono';
import type * as v from 'valibot';
import type { AppEnv } from './env.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface QueryParam {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export interface RouteSpec {
  method: Method;
  /** OpenAPI-style path with `{param}` placeholders, including `/v1`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  body?: v.GenericSchema;
  query?: QueryParam[];
  headers?: QueryParam[];
  /** Success status → schema of the body (null: no body). */
  responses: Record<number, { description: string; schema: v.GenericSchema | null }>;
  /** Problem codes this route answers with, beyond the ones every route may answer. */
  errors?: ErrorCode[];
  /**
   * What the caller needs. Installation permissions and project permissions of `{project}` routes
   * are checked before the handler; the rest (an object's project known only once it is read, a
   * publisher's repository named in the body) by the core use case the handler calls.
   */
  permission: Auth.Permission;
  /** Unauthenticated routes (health, webhooks). */
  public?: boolean;
}

export interface Registry {
  readonly routes: RouteSpec[];
  add(spec: RouteSpec, handler: (c: Context<AppEnv>) => Response | Promise<Response>): void;
  /** Methods served on a path, for 405 answers. */
  allowed(path: string): Method[];
}

export function createRegistry(app: Hono<AppEnv>): Registry {
  const routes: RouteSpec[] = [];
  const patterns: { regex: RegExp; method: Method }[] = [];
  return {
    routes,
    add(spec, handler) {
      routes.push(spec);
      const honoPath = spec.path.replace(/\{([a-z_]+)\}/g, ':$1');
      patterns.push({
        regex: new RegExp(`^${spec.path.replace(/\{[a-z_]+\}/g, '[^/]+')}$`),
        method: spec.method,
      });
      const early = checkedBeforeHandler(spec);
      app.on(spec.method.toUpperCase(), honoPath, (c) => {
        if (early === 'installation') Auth.authorize(c.get('identity'), spec.permission, { project: null });
        if (early === 'project') {
          const project = c.req.param('project') ?? '';
          if (isDnsLabel(project, 63)) Auth.authorize(c.get('identity'), spec.permission, { project });
        }
        return handler(c);
      });
    },
    allowed(path) {
      return patterns.filter((p) => p.regex.test(path)).map((p) => p.method);
    },
  };
}

function checkedBeforeHandler(spec: RouteSpec): 'installation' | 'project' | null {
  const rule = Auth.permissionRule(spec.permission);
  if (rule.scope === 'installation') return 'installation';
  if (rule.scope === 'project' && !rule.publisher && spec.path.includes('{project}')) return 'project';
  return null;
}

/** Problem codes any authenticated route may answer with. */
export const commonErrors: ErrorCode[] = [
  ErrorCode.Unauthenticated,
  ErrorCode.Forbidden,
  ErrorCode.Internal,
  ErrorCode.DependencyUnavailable,
];

export function statusesOf(codes: readonly ErrorCode[]): number[] {
  return [...new Set(codes.map((code) => errorCatalog[code].status))].sort();
}
