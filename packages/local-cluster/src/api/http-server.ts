// The HTTP face of the API server: URL layout, verbs, query parameters, content types, Status
// errors and watch streaming, as kubectl and @kubernetes/client-node speak them.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery.ts';
import {
  ApiError,
  badRequest,
  internal,
  methodNotAllowed,
  pathNotFound,
  successStatus,
  unauthorized,
  unsupportedMediaType,
} from './errors.ts';
import { clone, isObject } from './json.ts';
import { openApiGroupVersion, openApiRoot } from './openapi.ts';
import { type Api, type DeleteOptions, PatchType, type PropagationPolicy } from './operations.ts';
import { jsonPatch } from './patch/json-patch.ts';
import { mergePatch } from './patch/merge-patch.ts';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf/protobuf-body.ts';
import { groupVersion, type ResourceType } from './registry.ts';
import { formatSelector } from './selectors.ts';
import { refuseServedDefinitionWrite } from './served-definitions.ts';
import { includeObjectParam, toTable, wantsTable } from './table.ts';
import type { Deployment, KubeObject, Pod } from './types.ts';
import type { WatchHub } from './watch.ts';

const MAX_BODY = 3 * 1024 * 1024;

export interface PodLogRequest {
  container: string | undefined;
  tailLines: number | undefined;
  sinceSeconds: number | undefined;
  sinceTime: string | undefined;
  limitBytes: number | undefined;
  timestamps: boolean;
  previous: boolean;
  follow: boolean;
}

export interface PodLogSource {
  /** The log text, or an ApiError (container waiting, no previous instance…). */
  read(pod: Pod, request: PodLogRequest): string;
  /** Streams new lines after the current text until the container stops; returns a canceller. */
  follow(pod: Pod, request: PodLogRequest, write: (text: string) => void, end: () => void): () => void;
}

export interface RequestInfo {
  method: string;
  path: string;
  verb: string;
  group: string | undefined;
  resource: string | undefined;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
}

/** What a SelfSubjectAccessReview asks about (its `spec.resourceAttributes`, empty strings for "any"). */
export interface AccessAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface AccessDecision {
  allowed: boolean;
  denied: boolean;
  reason: string;
}

const allowEverything: AccessDecision = {
  allowed: true,
  denied: false,
  reason: 'this local cluster has no authorizer: every request is allowed',
};

export interface ApiHandlerDeps {
  api: Api;
  hub: WatchHub;
  logs: PodLogSource;
  token: string | undefined;
  serverAddress: () => string;
  /** Fault injection: may delay, and may answer with an error instead of the real handler. */
  beforeRequest?: (info: RequestInfo) => Promise<ApiError | undefined>;
  /** A SelfSubjectAccessReview's decision (fault injection may deny); undefined = allowed, as there is no RBAC. */
  authorize?: (attributes: AccessAttributes) => AccessDecision | undefined;
  /** Non-Kubernetes admin paths (the fault endpoint); returns false when the path is not its own. */
  admin?: (req: IncomingMessage, res: ServerResponse, body: string) => Promise<boolean>;
}

interface Target {
  rt: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  const headers: Record<string, string> = {};
  const retry = error.details?.retryAfterSeconds;
  if (retry !== undefined) headers['Retry-After'] = String(retry);
  sendJson(res, error.code, error.toStatus(), headers);
}

export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

async function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * An object to create or replace: JSON, or protobuf as kubectl's typed commands send it. The status
 * subresource reads JSON only, since the decoder declares no status messages.
 */
async function readObject(req: IncomingMessage, acceptProtobuf = true): Promise<unknown> {
  const type = mediaType(req);
  if (type === PROTOBUF_MEDIA_TYPE && acceptProtobuf) return decodeProtobufObject(await readBodyBytes(req));
  if (type !== '' && type !== 'application/json') throw unsupportedMediaType(type);
  return parseJson(await readBody(req));
}

function boolParam(q: URLSearchParams, key: string): boolean {
  const v = q.get(key);
  return v === 'true' || v === '1';
}

function intParam(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw badRequest(`${key}: invalid value "${v}"`);
  return n;
}

function defaultManager(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? '';
  const first = ua.split('/')[0]?.trim();
  return first ? first.slice(0, 128) : 'unknown';
}

function withoutTypeMeta(object: KubeObject): Omit<KubeObject, 'kind' | 'apiVersion'> {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
  return rest;
}

export function createApiHandler(deps: ApiHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { api } = deps;
  const registry = api.registry;

  function resolve(segments: string[]): { target?: Target; discovery?: unknown } {
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === 'api') {
      if (segments.length === 1) return { discovery: apiVersions(deps.serverAddress()) };
      group = '';
      version = segments[1] ?? '';
      rest = segments.slice(2);
    } else {
      if (segments.length === 1) return { discovery: apiGroupList(registry) };
      group = segments[1] ?? '';
      if (segments.length === 2) {
        const doc = apiGroupDocument(registry, group);
        if (!doc) throw pathNotFound();
        return { discovery: doc };
      }
      version = segments[2] ?? '';
      rest = segments.slice(3);
    }
    if (rest.length === 0) {
      const doc = apiResourceList(registry, group, version);
      if (!doc) throw pathNotFound();
      return { discovery: doc };
    }
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      const candidate = registry.find(group, version, rest[2] ?? '');
      if (candidate?.namespaced) {
        namespace = rest[1];
        rest = rest.slice(2);
      }
    }
    const rt = registry.find(group, version, rest[0] ?? '');
    if (!rt || rest.length > 3) throw pathNotFound();
    return { target: { rt, namespace, name: rest[1], subresource: rest[2] } };
  }

  function verbOf(method: string, target: Target, watch: boolean): string {
    if (method === 'GET') return target.name === undefined ? (watch ? 'watch' : 'list') : 'get';
    if (method === 'POST') return 'create';
    if (method === 'PUT') return 'update';
    if (method === 'PATCH') return 'patch';
    if (method === 'DELETE') return target.name === undefined ? 'deletecollection' : 'delete';
    return method.toLowerCase();
  }

  async function serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    target: Target,
  ): Promise<void> {
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const { rt, name, subresource } = target;
    const namespace = rt.namespaced ? target.namespace : undefined;
    const fieldManager = q.get('fieldManager') ?? defaultManager(req);
    const dryRun = q.get('dryRun') === 'All';
    const watch = boolParam(q, 'watch');
    const selectors = {
      labelSelector: q.get('labelSelector') ?? undefined,
      fieldSelector: q.get('fieldSelector') ?? undefined,
    };

    if (rt.namespaced && namespace === undefined && name !== undefined) throw pathNotFound();
    if (rt.verbs && !rt.verbs.includes(verbOf(method, target, watch))) throw methodNotAllowed();
    if (rt.group === 'authorization.k8s.io' && rt.resource === 'selfsubjectaccessreviews') {
      return serveAccessReview(req, res);
    }
    if (method === 'PUT' || method === 'PATCH' || method === 'DELETE') {
      refuseServedDefinitionWrite(rt, () =>
        name !== undefined
          ? [name]
          : api.list(rt, namespace, selectors).items.map((o) => o.metadata.name ?? ''),
      );
    }
    if (subresource !== undefined) {
      const allowed =
        (subresource === 'status' && rt.hasStatus) ||
        (subresource === 'scale' && rt.hasScale) ||
        (subresource === 'log' && rt.group === '' && rt.resource === 'pods');
      if (!allowed || name === undefined) throw pathNotFound();
    }

    if (name === undefined) {
      if (method === 'GET') {
        if (watch) return serveWatch(req, res, target, q, selectors);
        const result = api.list(rt, namespace, {
          ...selectors,
          limit: intParam(q, 'limit'),
          continue: q.get('continue') ?? undefined,
        });
        const metadata = {
          resourceVersion: result.resourceVersion,
          ...(result.continue
            ? { continue: result.continue, remainingItemCount: result.remainingItemCount }
            : {}),
        };
        if (wantsTable(req.headers.accept)) {
          return sendJson(
            res,
            200,
            toTable(rt, result.items, metadata, includeObjectParam(q.get('includeObject'))),
          );
        }
        return sendJson(res, 200, {
          kind: rt.listKind,
          apiVersion: groupVersion(rt),
          metadata,
          items: rt.builtin ? result.items.map(withoutTypeMeta) : result.items,
        });
      }
      if (method === 'POST') {
        if (rt.namespaced && namespace === undefined) throw methodNotAllowed();
        const body = await readObject(req);
        const created = api.create(rt, namespace, body, { fieldManager, dryRun });
        return sendJson(res, 201, created);
      }
      if (method === 'DELETE') {
        const options = await deleteOptions(req, q);
        const deleted = api.deleteCollection(rt, namespace, selectors, options);
        return sendJson(res, 200, {
          kind: rt.listKind,
          apiVersion: groupVersion(rt),
          metadata: { resourceVersion: String(api.store.currentRv()) },
          items: deleted,
        });
      }
      throw methodNotAllowed();
    }

    if (subresource === 'log') {
      if (method !== 'GET') throw methodNotAllowed();
      return serveLog(res, api.get(rt, namespace, name) as Pod, q);
    }
    if (subresource === 'scale') return serveScale(req, res, target, q, fieldManager, dryRun);
    const statusSub = subresource === 'status' ? ('status' as const) : undefined;

    switch (method) {
      case 'GET': {
        const object = api.get(rt, namespace, name);
        if (wantsTable(req.headers.accept)) {
          const metadata = { resourceVersion: object.metadata.resourceVersion };
          return sendJson(
            res,
            200,
            toTable(rt, [object], metadata, includeObjectParam(q.get('includeObject'))),
          );
        }
        return sendJson(res, 200, object);
      }
      case 'PUT': {
        const body = await readObject(req, statusSub === undefined);
        const updated = api.update(rt, namespace, name, body, {
          fieldManager,
          dryRun,
          subresource: statusSub,
        });
        return sendJson(res, 200, updated);
      }
      case 'PATCH': {
        const type = mediaType(req);
        const text = await readBody(req);
        const body = type === PatchType.apply ? parseApplyBody(text) : parseJson(text);
        const force = boolParam(q, 'force');
        const { object, created } = api.patch(rt, namespace, name, type, body, {
          fieldManager: q.get('fieldManager') ?? (type === PatchType.apply ? undefined : fieldManager),
          dryRun,
          force,
          subresource: statusSub,
        });
        return sendJson(res, created ? 201 : 200, object);
      }
      case 'DELETE': {
        if (statusSub) throw methodNotAllowed();
        const options = await deleteOptions(req, q);
        const { object, deleted } = api.delete(rt, namespace, name, options);
        if (deleted) return sendJson(res, 200, successStatus(rt, name, object.metadata.uid));
        return sendJson(res, 200, object);
      }
      default:
        throw methodNotAllowed();
    }
  }

  /** Nothing is stored: the review comes back with its `status` filled in, as from a real server. */
  async function serveAccessReview(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readObject(req);
    const spec = isObject(body) && isObject(body.spec) ? body.spec : {};
    const attributes = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
    if (!attributes && !isObject(spec.nonResourceAttributes)) {
      throw new ApiError(
        422,
        'Invalid',
        'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      );
    }
    const text = (key: string) =>
      attributes && typeof attributes[key] === 'string' ? (attributes[key] as string) : '';
    const decision = attributes
      ? (deps.authorize?.({
          verb: text('verb'),
          group: text('group'),
          resource: text('resource'),
          subresource: text('subresource'),
          namespace: text('namespace'),
          name: text('name'),
        }) ?? allowEverything)
      : allowEverything;
    return sendJson(res, 201, {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec,
      status: {
        allowed: decision.allowed,
        ...(decision.denied ? { denied: true } : {}),
        reason: decision.reason,
      },
    });
  }

  async function deleteOptions(req: IncomingMessage, q: URLSearchParams): Promise<DeleteOptions> {
    const text = await readBody(req);
    const type = mediaType(req);
    if (text !== '' && type === PROTOBUF_MEDIA_TYPE) throw unsupportedMediaType(type);
    const body = text.trim() === '' ? {} : parseJson(text);
    const b = isObject(body) ? body : {};
    let policy = (q.get('propagationPolicy') ?? b.propagationPolicy) as string | undefined;
    const orphan = q.get('orphanDependents') ?? b.orphanDependents;
    if (policy === undefined && (orphan === true || orphan === 'true')) policy = 'Orphan';
    if (policy !== undefined && policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan') {
      throw badRequest(
        `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    const preconditions = isObject(b.preconditions)
      ? (b.preconditions as DeleteOptions['preconditions'])
      : undefined;
    const dryRun = q.get('dryRun') === 'All' || (Array.isArray(b.dryRun) && b.dryRun.includes('All'));
    return { propagationPolicy: policy as PropagationPolicy | undefined, preconditions, dryRun };
  }

  function serveWatch(
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    q: URLSearchParams,
    selectors: { labelSelector: string | undefined; fieldSelector: string | undefined },
  ): void {
    const { rt } = target;
    const table = wantsTable(req.headers.accept);
    const include = includeObjectParam(q.get('includeObject'));
    let columnsSent = false;
    let started = false;
    const start = (): void => {
      if (started) return;
      started = true;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    };
    const stop = deps.hub.open(
      {
        rt,
        namespace: rt.namespaced ? target.namespace : undefined,
        ...selectors,
        resourceVersion: q.get('resourceVersion') ?? undefined,
        allowBookmarks: boolParam(q, 'allowWatchBookmarks'),
        sendInitialEvents: boolParam(q, 'sendInitialEvents'),
        timeoutSeconds: intParam(q, 'timeoutSeconds'),
      },
      {
        send(event) {
          start();
          let object = event.object;
          if (table && (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')) {
            // As on a real server, only the first Table of a stream carries the column definitions.
            object = toTable(rt, [event.object as KubeObject], {}, include, !columnsSent);
            columnsSent = true;
          }
          res.write(`${JSON.stringify({ type: event.type, object })}\n`);
        },
        end() {
          start();
          res.end();
        },
      },
    );
    start();
    res.flushHeaders();
    req.socket.setNoDelay(true);
    res.on('close', stop);
  }

  function logRequest(q: URLSearchParams): PodLogRequest {
    return {
      container: q.get('container') ?? undefined,
      tailLines: intParam(q, 'tailLines'),
      sinceSeconds: intParam(q, 'sinceSeconds'),
      sinceTime: q.get('sinceTime') ?? undefined,
      limitBytes: intParam(q, 'limitBytes'),
      timestamps: boolParam(q, 'timestamps'),
      previous: boolParam(q, 'previous'),
      follow: boolParam(q, 'follow'),
    };
  }

  function serveLog(res: ServerResponse, pod: Pod, q: URLSearchParams): void {
    const request = logRequest(q);
    const text = deps.logs.read(pod, request);
    if (!request.follow) {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write(text);
    const cancel = deps.logs.follow(
      pod,
      request,
      (chunk) => res.write(chunk),
      () => res.end(),
    );
    res.on('close', cancel);
  }

  async function serveScale(
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    q: URLSearchParams,
    fieldManager: string,
    dryRun: boolean,
  ): Promise<void> {
    const { rt } = target;
    const namespace = target.namespace;
    const name = target.name ?? '';
    const toScale = (o: KubeObject): unknown => {
      const d = o as Deployment;
      return {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: {
          name: o.metadata.name,
          namespace: o.metadata.namespace,
          uid: o.metadata.uid,
          resourceVersion: o.metadata.resourceVersion,
          creationTimestamp: o.metadata.creationTimestamp,
        },
        spec: { replicas: d.spec.replicas ?? 1 },
        status: { replicas: d.status?.replicas ?? 0, selector: formatSelector(d.spec.selector) },
      };
    };
    const method = req.method ?? 'GET';
    const current = api.get(rt, namespace, name);
    if (method === 'GET') return sendJson(res, 200, toScale(current));
    let scale: unknown;
    if (method === 'PUT') scale = parseJson(await readBody(req));
    else if (method === 'PATCH') {
      const type = mediaType(req);
      const body = parseJson(await readBody(req));
      if (type === PatchType.json) scale = jsonPatch(toScale(current), body);
      else if (type === PatchType.merge || type === PatchType.strategic || type === PatchType.apply)
        scale = mergePatch(toScale(current), body);
      else throw unsupportedMediaType(type);
    } else throw methodNotAllowed();
    if (!isObject(scale) || !isObject(scale.spec) || typeof scale.spec.replicas !== 'number') {
      throw badRequest('a Scale needs spec.replicas');
    }
    const rv = isObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
    const next = clone(current) as Deployment;
    next.spec.replicas = scale.spec.replicas;
    if (typeof rv === 'string' && rv !== '') next.metadata.resourceVersion = rv;
    const updated = api.update(rt, namespace, name, next, {
      fieldManager: q.get('fieldManager') ?? fieldManager,
      dryRun,
    });
    return sendJson(res, 200, toScale(updated));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (path === '/version') return sendJson(res, 200, versionInfo());
    if (path === '/openapi/v3') return sendJson(res, 200, openApiRoot(registry));
    if (path.startsWith('/openapi/v3/')) {
      const parts = path.slice('/openapi/v3/'.length).split('/');
      const doc =
        parts[0] === 'api'
          ? openApiGroupVersion(registry, '', parts[1] ?? '')
          : openApiGroupVersion(registry, parts[1] ?? '', parts[2] ?? '');
      if (doc) return sendJson(res, 200, doc);
      throw pathNotFound();
    }
    const authorized = !deps.token || req.headers.authorization === `Bearer ${deps.token}`;
    if (deps.admin && path.startsWith('/_')) {
      if (!authorized) throw unauthorized();
      const body = await readBody(req);
      if (await deps.admin(req, res, body)) return;
    }
    const segments = path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    if (segments[0] !== 'api' && segments[0] !== 'apis') throw pathNotFound();
    if (!authorized) throw unauthorized();
    if (segments[2] === 'watch' && segments[0] === 'api') {
      segments.splice(2, 1);
      url.searchParams.set('watch', 'true');
    } else if (segments[3] === 'watch' && segments[0] === 'apis') {
      segments.splice(3, 1);
      url.searchParams.set('watch', 'true');
    }
    const { target, discovery } = resolve(segments);
    if (deps.beforeRequest) {
      const info: RequestInfo = {
        method: req.method ?? 'GET',
        path,
        verb: target ? verbOf(req.method ?? 'GET', target, boolParam(url.searchParams, 'watch')) : 'get',
        group: target?.rt.group,
        resource: target?.rt.resource,
        subresource: target?.subresource,
        namespace: target?.namespace,
        name: target?.name,
      };
      const injected = await deps.beforeRequest(info);
      if (injected) throw injected;
    }
    if (discovery !== undefined) {
      if (req.method !== 'GET') throw methodNotAllowed();
      return sendJson(res, 200, discovery);
    }
    if (target) return serveResource(req, res, url, target);
    throw pathNotFound();
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof ApiError) sendError(res, error);
      else {
        process.stderr.write(`local-cluster: ${(error as Error).stack ?? String(error)}\n`);
        sendError(res, internal((error as Error).message));
      }
    });
  };
}

/** Apply bodies are YAML by name; kubectl and client-node send JSON, which is YAML's flow subset. */
function parseApplyBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      'this server reads application/apply-patch+yaml bodies written as JSON (the flow subset of YAML); send the object as JSON',
    );
  }
}
