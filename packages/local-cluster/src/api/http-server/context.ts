// What the parts of the HTTP face share: the handler's dependencies, the hooks it offers fault
// injection, and one request to a resource path with what its verbs read from the query.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../../auth/identity.ts';
import type { Decision } from '../../auth/rbac.ts';
import type { PolicyRule, RequestAttributes } from '../../auth/rules.ts';
import type { ApiError } from '../errors.ts';
import type { Api } from '../operations.ts';
import type { ResourceType } from '../registry.ts';
import type { Pod } from '../types.ts';
import type { WatchHub } from '../watch.ts';
import { boolParam } from './query.ts';

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

export interface ApiHandlerDeps {
  api: Api;
  hub: WatchHub;
  logs: PodLogSource;
  /** Who sent a request with this `Authorization` header; undefined for a token nobody has (401). */
  authenticate: (header: string | undefined) => UserInfo | undefined;
  /** Whether the user may make the request (RBAC, or everything when the cluster has no users). */
  authorize: (user: UserInfo, request: RequestAttributes) => Decision;
  /** The rules that apply to a user in a namespace ('' for the cluster's only). */
  rulesFor: (user: UserInfo, namespace: string) => PolicyRule[];
  serverAddress: () => string;
  /** Fault injection: may delay, and may answer with an error instead of the real handler. */
  beforeRequest?: (info: RequestInfo) => Promise<ApiError | undefined>;
  /** A `deny` fault's answer to an access review it matches; undefined leaves the review to RBAC. */
  faultDenial?: (attributes: AccessAttributes) => AccessDecision | undefined;
  /** Non-Kubernetes admin paths (the fault endpoint); returns false when the path is not its own. */
  admin?: (req: IncomingMessage, res: ServerResponse, body: string) => Promise<boolean>;
}

/** A resource path as the URL names it. */
export interface Target {
  rt: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

interface Selectors {
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
}

/** One request to a resource path, with the query parameters every verb reads. */
export interface ResourceCall {
  deps: ApiHandlerDeps;
  /** Who the request acts as. */
  user: UserInfo;
  api: Api;
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  rt: ResourceType;
  /** Undefined for a cluster-scoped type, whatever the path said. */
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  method: string;
  fieldManager: string;
  dryRun: boolean;
  watch: boolean;
  selectors: Selectors;
}

/** The manager of a write that names none: the client's name from its User-Agent, as a real server does. */
function defaultManager(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? '';
  const first = ua.split('/')[0]?.trim();
  return first ? first.slice(0, 128) : 'unknown';
}

export function resourceCall(
  deps: ApiHandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  target: Target,
  user: UserInfo,
): ResourceCall {
  const query = url.searchParams;
  const { rt } = target;
  return {
    deps,
    user,
    api: deps.api,
    req,
    res,
    query,
    rt,
    namespace: rt.namespaced ? target.namespace : undefined,
    name: target.name,
    subresource: target.subresource,
    method: req.method ?? 'GET',
    fieldManager: query.get('fieldManager') ?? defaultManager(req),
    dryRun: query.get('dryRun') === 'All',
    watch: boolParam(query, 'watch'),
    selectors: {
      labelSelector: query.get('labelSelector') ?? undefined,
      fieldSelector: query.get('fieldSelector') ?? undefined,
    },
  };
}
