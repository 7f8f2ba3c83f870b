/** The OpenAPI 3.1 document, generated from the operations of the contract and the valibot schemas in core. */
import { bodyLimits, ErrorCode, errorCatalog } from '@svc/core';
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { operations } from './index.ts';
import {
  type Answer,
  type ApiOperation,
  isOpen,
  type OpenOperation,
  type Operation,
  pathParamNames,
  type QuerySchema,
} from './operation.ts';
import { problemsOf } from './problems.ts';

type Json = Record<string, unknown>;

function schemaOf(schema: v.GenericSchema, typeMode: 'input' | 'output'): Json {
  const { $schema: _, ...json } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'ignore',
  }) as Json;
  return json;
}

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

function statusesOf(codes: readonly ErrorCode[]): number[] {
  return [...new Set(codes.map((code) => errorCatalog[code].status))].sort();
}

/** Bearer works everywhere; a session cookie needs the CSRF header on a change. */
function securityOf(method: string): Json[] {
  return method === 'get' ? [{ bearer: [] }, { session: [] }] : [{ bearer: [] }, { session: [], csrf: [] }];
}

/** Every 401 carries the same body; why a presented credential was refused is said here. */
const challengeHeader: Json = {
  'WWW-Authenticate': {
    description:
      'Bearer; when a credential was sent and refused, also error="invalid_token" and an error_description saying why (unknown or expired, revoked, sign-in ended), as RFC 6750 section 3 defines them.',
    schema: { type: 'string' },
  },
};

/** Problem answers by status, each naming its codes. */
function problemResponses(codes: readonly ErrorCode[]): Record<string, Json> {
  const responses: Record<string, Json> = {};
  for (const status of statusesOf(codes)) {
    const names = codes.filter((code) => errorCatalog[code].status === status);
    responses[String(status)] = {
      description: `Problem: ${names.join(', ')}`,
      ...(names.includes(ErrorCode.Unauthenticated) ? { headers: challengeHeader } : {}),
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return responses;
}

function answer(response: Answer): Json {
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

const optionalTypes = new Set(['optional', 'exact_optional', 'nullish', 'undefinedable']);

/**
 * A parameter as the document describes it: its schema is the typed side of the valibot schema
 * (`limit` is an integer, though the query carries digits), its description the schema's own.
 */
function parameter(name: string, location: 'query' | 'header', schema: v.GenericSchema): Json {
  const { description, ...json } = schemaOf(schema, 'output');
  return {
    name,
    in: location,
    required: location === 'query' && !optionalTypes.has(schema.type),
    description,
    schema: json,
  };
}

function queryParameters(query: QuerySchema | undefined): Json[] {
  return Object.entries(query?.entries ?? {}).map(([name, schema]) => parameter(name, 'query', schema));
}

/** An operation outside /v1: no bearer token (`security: []`); `x-permission: none`, `x-proof` says what stands in. */
function openOperation(operationId: string, operation: OpenOperation): Json {
  const responses = {
    ...Object.fromEntries(Object.entries(operation.responses).map(([s, r]) => [s, answer(r)])),
    ...problemResponses(problemsOf(operation)),
  };
  const parameters = queryParameters(operation.query);
  return {
    operationId,
    summary: operation.summary,
    tags: [operation.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(operation.form
      ? {
          requestBody: {
            required: !operation.formOptional,
            content: { 'application/x-www-form-urlencoded': { schema: schemaOf(operation.form, 'input') } },
          },
        }
      : {}),
    responses,
    'x-permission': 'none',
    'x-proof': operation.proof,
    security: [],
  };
}

/** An operation under /v1: its parameters, success answers and every problem it may answer. */
function apiOperation(operationId: string, operation: ApiOperation): Json {
  const pathParams = pathParamNames(operation.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [
    ...pathParams,
    ...queryParameters(operation.query),
    ...Object.entries(operation.headers ?? {}).map(([name, header]) => ({
      ...parameter(name, 'header', header.schema),
      description: header.description,
    })),
  ];
  const responses = {
    ...Object.fromEntries(Object.entries(operation.responses).map(([s, r]) => [s, answer(r)])),
    ...problemResponses(problemsOf(operation)),
  };
  return {
    operationId,
    summary: operation.summary,
    tags: [operation.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: !operation.bodyOptional,
            description: `At most ${bodyLimits.maxBytes / 1024} KiB, nested at most ${bodyLimits.maxDepth} levels; the keys __proto__, constructor and prototype are refused anywhere.`,
            content: { 'application/json': { schema: schemaOf(operation.body, 'input') } },
          },
        }
      : {}),
    responses,
    'x-permission': operation.permission,
    security: securityOf(operation.method),
  };
}

function describe(operationId: string, operation: Operation): Json {
  return isOpen(operation) ? openOperation(operationId, operation) : apiOperation(operationId, operation);
}

/** The document of every operation, at the server's release. */
export function openApiDocument(info: { version: string }): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const [operationId, operation] of Object.entries(operations)) {
    paths[operation.path] ??= {};
    (paths[operation.path] as Record<string, Json>)[operation.method] = describe(operationId, operation);
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
