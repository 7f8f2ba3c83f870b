/** The OpenAPI 3.1 document, generated from the route registry and the valibot schemas in core. */
import { bodyLimits, ErrorCode, errorCatalog } from '@svc/core';
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { OutsideResponse, OutsideRoute } from './outside-routes.ts';
import { commonErrors, type QueryParam, type RouteSpec, statusesOf } from './registry.ts';

type Json = Record<string, unknown>;

function schemaOf(schema: v.GenericSchema, typeMode: 'input' | 'output'): Json {
  const { $schema: _, ...json } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'ignore',
  }) as Json;
  return json;
}

/**
 * What any route with a body may answer before the route sees it (`readJson` and the middleware):
 * malformed JSON, a body too large or nested too deep, another media type, a reserved key.
 */
const bodyErrors: ErrorCode[] = [
  ErrorCode.MalformedJson,
  ErrorCode.PayloadTooLarge,
  ErrorCode.UnsupportedMediaType,
  ErrorCode.ValidationFailed,
];

const problemSchema: Json = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code', 'errors'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(errorCatalog) },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } },
      },
    },
    instance: { type: 'string', description: 'The request id.' },
  },
};

/** Bearer works everywhere; a session cookie needs the CSRF header on a change. */
function securityOf(method: string): Json[] {
  return method === 'get' ? [{ bearer: [] }, { session: [] }] : [{ bearer: [] }, { session: [], csrf: [] }];
}

/** Problem answers by status, each naming its codes. */
function problemResponses(codes: readonly ErrorCode[]): Record<string, Json> {
  const responses: Record<string, Json> = {};
  for (const status of statusesOf(codes)) {
    const names = codes.filter((code) => errorCatalog[code].status === status);
    responses[String(status)] = {
      description: `Problem: ${names.join(', ')}`,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return responses;
}

function outsideResponse(response: OutsideResponse): Json {
  if (response.json) {
    return {
      description: response.description,
      content: { 'application/json': { schema: schemaOf(response.json, 'output') } },
    };
  }
  if (response.html) {
    return { description: response.description, content: { 'text/html': { schema: { type: 'string' } } } };
  }
  if (response.redirect) {
    const location = { description: 'Where to go next.', schema: { type: 'string' } };
    return { description: response.description, headers: { Location: location } };
  }
  return { description: response.description };
}

/** A route outside /v1: no bearer token (`security: []`); `x-permission: none`, `x-proof` says what stands in. */
function outsideOperation(route: OutsideRoute): Json {
  const codes = [
    ...(route.signInOnly ? [ErrorCode.NotFound] : []),
    ...(route.form && !route.formOptional ? [ErrorCode.UnsupportedMediaType] : []),
    ...(route.problems ?? []),
  ];
  const responses = {
    ...Object.fromEntries(Object.entries(route.responses).map(([s, r]) => [s, outsideResponse(r)])),
    ...problemResponses(codes),
  };
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.query?.length ? { parameters: route.query.map(optional('query')) } : {}),
    ...(route.form
      ? {
          requestBody: {
            required: !route.formOptional,
            content: { 'application/x-www-form-urlencoded': { schema: schemaOf(route.form, 'input') } },
          },
        }
      : {}),
    responses,
    'x-permission': 'none',
    'x-proof': route.proof,
    security: [],
  };
}

/** An optional query or header parameter. */
const optional =
  (location: 'query' | 'header') =>
  ({ name, description, schema }: QueryParam): Json => ({
    name,
    in: location,
    required: false,
    description,
    schema,
  });

/** A /v1 route of the registry: its parameters, success answers and every problem it may answer. */
function v1Operation(route: RouteSpec): Json {
  const pathParams = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [
    ...pathParams,
    ...(route.query ?? []).map(optional('query')),
    ...(route.headers ?? []).map(optional('header')),
  ];
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? { content: { 'application/json': { schema: schemaOf(response.schema, 'output') } } }
        : {}),
    };
  }
  const codes: ErrorCode[] = [
    ...new Set([
      ...(route.public ? [] : commonErrors),
      ...(route.body ? bodyErrors : []),
      ...(pathParams.length ? [ErrorCode.NotFound] : []),
      ...(route.query?.length ? [ErrorCode.InvalidQuery] : []),
      // Every change is counted per identity (docs/auth.md, "Limits"), whatever the route.
      ...(route.public || route.method === 'get' ? [] : [ErrorCode.RateLimited]),
      ...(route.errors ?? []),
    ]),
  ];
  Object.assign(responses, problemResponses(codes));
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            description: `At most ${bodyLimits.maxBytes / 1024} KiB, nested at most ${bodyLimits.maxDepth} levels; the keys __proto__, constructor and prototype are refused anywhere.`,
            content: { 'application/json': { schema: schemaOf(route.body, 'input') } },
          },
        }
      : {}),
    responses,
    'x-permission': route.permission,
    security: route.public ? [] : securityOf(route.method),
  };
}

export function openApiDocument(
  routes: readonly RouteSpec[],
  outside: readonly OutsideRoute[],
  info: { version: string },
): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of outside) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, Json>)[route.method] = outsideOperation(route);
  }
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, Json>)[route.method] = v1Operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Preview Composition Service',
      version: info.version,
      description:
        'Short-lived previews that override up to three components of a shared Kubernetes baseline.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A machine token (svc_…, POST /v1/tokens), a sign-in access token (svca_…, POST /auth/token), or the shared token of a shared-token installation.',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-svc_session',
          description: 'A browser session (password and oidc modes), from signing in at /auth/login.',
        },
        csrf: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description:
            'Required with the session cookie on every change, with a same-origin Origin: the csrf_token of GET /auth/config.',
        },
      },
      schemas: { Problem: problemSchema },
    },
    'x-error-codes': Object.fromEntries(
      Object.entries(errorCatalog).map(([code, entry]) => [
        code,
        { status: entry.status, title: entry.title, description: entry.description },
      ]),
    ),
  };
}
