/**
 * Errors are values with stable codes. Every error the service returns on purpose is a
 * `ProblemError`; the API maps it to RFC 9457 problem+json in one place. The codes are listed in
 * docs/errors.md and in the OpenAPI document.
 */

export interface FieldError {
  /** JSON pointer into the request (`/overrides/service-b/image`), or the query/header name. */
  path: string;
  message: string;
  /** A finer-grained code where one exists (catalog problems, plan blockers). */
  code?: string;
}

/**
 * The problem+json body (RFC 9457) the API answers with. Clients (the CLI, the MCP adapter)
 * describe the failures they find themselves in the same shape.
 */
export interface ProblemBody {
  type: string;
  title: string;
  /** The HTTP status; null for a problem a client found before, or without, an answer. */
  status: number | null;
  detail: string;
  code: string;
  errors: FieldError[];
  [extra: string]: unknown;
}

export const ErrorCode = {
  MalformedJson: 'malformed_json',
  InvalidQuery: 'invalid_query',
  InvalidIdempotencyKey: 'invalid_idempotency_key',
  Unauthenticated: 'unauthenticated',
  Forbidden: 'forbidden',
  NotFound: 'not_found',
  GenerationMismatch: 'generation_mismatch',
  OperationInProgress: 'operation_in_progress',
  CompositionNotUpdatable: 'composition_not_updatable',
  CompositionExpired: 'composition_expired',
  ForgeOwned: 'forge_owned',
  SleepNotEnabled: 'sleep_not_enabled',
  StaleRevision: 'stale_revision',
  IdempotencyInFlight: 'idempotency_in_flight',
  CatalogConflict: 'catalog_conflict',
  PreviewRevisionChanged: 'preview_revision_changed',
  VersionMismatch: 'version_mismatch',
  PayloadTooLarge: 'payload_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  ValidationFailed: 'validation_failed',
  UnknownReference: 'unknown_reference',
  IdempotencyKeyReused: 'idempotency_key_reused',
  DraftContentRefused: 'draft_content_refused',
  MethodNotAllowed: 'method_not_allowed',
  RateLimited: 'rate_limited',
  QuotaExceeded: 'quota_exceeded',
  CsrfRejected: 'csrf_rejected',
  DependencyUnavailable: 'dependency_unavailable',
  Internal: 'internal_error',
  SignatureInvalid: 'signature_invalid',
  PreviewNotRestartable: 'preview_not_restartable',
  ForgeNotConfigured: 'forge_not_configured',
  NameTaken: 'name_taken',
  NamespaceTaken: 'namespace_taken',
  NamespaceInUse: 'namespace_in_use',
  RepositoryTaken: 'repository_taken',
  ConcurrentChange: 'concurrent_change',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Status, title and a one-line description of every code; the single source for docs and OpenAPI. */
export const errorCatalog: Record<ErrorCode, { status: number; title: string; description: string }> = {
  malformed_json: { status: 400, title: 'Malformed JSON', description: 'The body is not valid JSON.' },
  invalid_query: {
    status: 400,
    title: 'Invalid query parameter',
    description: 'A known query parameter has a bad value.',
  },
  invalid_idempotency_key: {
    status: 400,
    title: 'Invalid Idempotency-Key',
    description: 'Idempotency-Key must be 1–128 printable ASCII characters.',
  },
  unauthenticated: {
    status: 401,
    title: 'Unauthenticated',
    description: 'Credentials are missing or invalid.',
  },
  forbidden: { status: 403, title: 'Forbidden', description: 'The caller may not do this.' },
  csrf_rejected: {
    status: 403,
    title: 'CSRF check failed',
    description:
      'A cookie-authenticated change needs a same-origin Origin header and the X-CSRF-Token GET /auth/config gives.',
  },
  not_found: { status: 404, title: 'Not found', description: 'No such resource (or route).' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description: 'The route exists but not with this method.',
  },
  generation_mismatch: {
    status: 409,
    title: 'Generation mismatch',
    description: 'expected_generation differs from the current generation.',
  },
  operation_in_progress: {
    status: 409,
    title: 'Operation in progress',
    description: 'A rollout or deletion of this composition is still in progress.',
  },
  composition_not_updatable: {
    status: 409,
    title: 'Composition not updatable',
    description: 'Only a composition in phase ready or failed can be updated.',
  },
  composition_expired: {
    status: 409,
    title: 'Composition expired',
    description: 'The composition is past expires_at.',
  },
  forge_owned: {
    status: 409,
    title: 'Owned by the forge application',
    description: 'This preview is managed by pull-request automation; use the pr-preview commands.',
  },
  sleep_not_enabled: {
    status: 409,
    title: 'Sleep not enabled',
    description: 'The composition never sleeps: its baseline does not enable sleep, or it overrides nothing.',
  },
  stale_revision: {
    status: 409,
    title: 'Stale revision',
    description: 'The revision given is not the current revision of the resource.',
  },
  idempotency_in_flight: {
    status: 409,
    title: 'Idempotent request in flight',
    description: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  },
  catalog_conflict: {
    status: 409,
    title: 'Catalog changed concurrently',
    description: 'Other applies kept changing the same projects; retry the apply.',
  },
  name_taken: {
    status: 409,
    title: 'Name taken',
    description: 'Another live machine token (or person) already has this name or identity-provider subject.',
  },
  namespace_taken: {
    status: 409,
    title: 'Namespace taken',
    description:
      "The baseline's namespace belongs to another project's baseline; a namespace has one project.",
  },
  namespace_in_use: {
    status: 409,
    title: 'Namespace in use',
    description:
      'The apply would give up a namespace where the project still has live compositions (named); destroy them, or let them expire, first.',
  },
  repository_taken: {
    status: 409,
    title: 'Repository taken',
    description:
      'The repository belongs to another project (named), whose preview policy holds it; a repository has one project.',
  },
  concurrent_change: {
    status: 409,
    title: 'Changed concurrently',
    description: 'The record changed between this request reading and writing it; read it again and retry.',
  },
  preview_revision_changed: {
    status: 409,
    title: 'Preview revision changed',
    description: "A component's approved profile revision differs from expected_preview_revisions.",
  },
  version_mismatch: {
    status: 409,
    title: 'Version mismatch',
    description: "expected_version differs from the frontend binding's current version.",
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'The body exceeds 256 KiB, or nests arrays and objects deeper than 32 levels.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description: 'POST, PATCH and PUT bodies must be application/json.',
  },
  validation_failed: {
    status: 422,
    title: 'Validation failed',
    description: 'Well-formed JSON that breaks a rule; `errors` names each field.',
  },
  unknown_reference: {
    status: 422,
    title: 'Unknown reference',
    description: 'The body names a project, baseline, component or build that does not exist.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key reused',
    description: 'This Idempotency-Key was already used with a different request body.',
  },
  draft_content_refused: {
    status: 422,
    title: 'Draft content refused',
    description:
      'An onboarding draft never stores environment values, ConfigMap values, credentials or messaging configuration; `errors` names each field.',
  },
  signature_invalid: {
    status: 401,
    title: 'Signature invalid',
    description: 'A forge webhook without a valid X-Hub-Signature-256 for the raw body; nothing was stored.',
  },
  preview_not_restartable: {
    status: 409,
    title: 'Preview not restartable',
    description:
      'A restart needs an open pull request carrying the trigger label and an enabled policy; `errors` names what is missing.',
  },
  forge_not_configured: {
    status: 409,
    title: 'Forge not configured',
    description: 'No forge application (GitHub App) is configured on this installation.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limited',
    description: 'Too many requests from this identity (or sign-in attempts for this name); see Retry-After.',
  },
  quota_exceeded: {
    status: 429,
    title: 'Quota exceeded',
    description: 'The project already has as many live compositions as its quota allows; destroy one first.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description: 'A bug. The response carries a request id to report; no internals.',
  },
  dependency_unavailable: {
    status: 503,
    title: 'Dependency unavailable',
    description: 'A backing service (database, queue, cluster) did not answer; retry later.',
  },
};

export class ProblemError extends Error {
  override name = 'ProblemError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[];
  /** Response headers the answer needs (`WWW-Authenticate`, `Allow`, `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: FieldError[]; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = errorCatalog[code].status;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
  }

  get title(): string {
    return errorCatalog[this.code].title;
  }
}

export function validationFailed(errors: FieldError[], detail?: string): ProblemError {
  const summary = errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; ');
  return new ProblemError(ErrorCode.ValidationFailed, detail ?? summary, { errors });
}

/** The backing services an adapter can find unavailable. */
export const Dependency = {
  DynamoDB: 'dynamodb',
  Sqs: 'sqs',
  Sns: 'sns',
  Cluster: 'cluster',
  Forge: 'forge',
  IdentityProvider: 'identity_provider',
} as const;
export type Dependency = (typeof Dependency)[keyof typeof Dependency];

/**
 * A backing service did not serve the request: unreachable, throttling, or failing on its side.
 * Adapters raise it at their edge, so callers tell an outage from a bug with `instanceof`: the API
 * answers 503 `dependency_unavailable`, a worker step throws it and is retried. A domain answer
 * (a failed condition, not found, a conflict) is never one.
 */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError';
  readonly dependency: Dependency;

  /** `detail` is one line saying what failed, without credentials. */
  constructor(dependency: Dependency, detail: string, cause: unknown) {
    super(detail, { cause });
    this.dependency = dependency;
  }
}

/** Socket and undici codes of a connection that could not be made or was lost. */
const connectionCode =
  /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR_[A-Z_]+)$/;
const deniedName =
  /AccessDenied|Unauthori[sz]ed|UnrecognizedClient|InvalidClientTokenId|ExpiredToken|Forbidden/i;
const throttledName = /Throttl|TooManyRequests|RequestLimitExceeded/i;
const wordOnly = /^[A-Za-z]{1,40}$/;

type ErrorLike = {
  name?: unknown;
  code?: unknown;
  status?: unknown;
  statusCode?: unknown;
  reason?: unknown;
  body?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: unknown };
};

/** The error and its causes, outermost first (a few levels: causes can be cyclic). */
function errorChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let e = error; e && typeof e === 'object' && chain.length < 5; e = (e as ErrorLike).cause) {
    chain.push(e as ErrorLike);
  }
  return chain;
}

function httpStatusOf(e: ErrorLike): number | undefined {
  const status = [e.code, e.status, e.statusCode, e.$metadata?.httpStatusCode].find(
    (value) => typeof value === 'number' && value >= 100 && value <= 599,
  );
  return status as number | undefined;
}

/** The `reason` of a Kubernetes Status (`Forbidden`, `NotFound`…), the error's or its body's: a fixed word, or nothing. */
function statusReasonOf(e: ErrorLike): string {
  if (typeof e.reason === 'string' && wordOnly.test(e.reason)) return e.reason;
  let body = e.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return '';
    }
  }
  const reason = (body as { reason?: unknown } | null | undefined)?.reason;
  return typeof reason === 'string' && wordOnly.test(reason) ? reason : '';
}

/**
 * A short cause of a failure, safe to show outside the server (health answers, blockers, log
 * snapshots): a fixed phrase chosen from the error's kind, name, code and status — never its
 * message, which can carry addresses, ARNs, credentials' identities, response headers and bodies.
 * The detail belongs in the server log, next to the request or operation id.
 */
export function outwardCause(error: unknown): string {
  if (error instanceof ProblemError) return error.message;
  if (error instanceof DependencyUnavailableError) {
    const inner = errorChain(error).slice(1);
    return `${error.dependency} unavailable${inner.length ? `: ${causeOf(inner)}` : ''}`;
  }
  return causeOf(errorChain(error));
}

function causeOf(chain: ErrorLike[]): string {
  const names = chain.map((e) => (typeof e.name === 'string' ? e.name : ''));
  if (names.some((name) => name === 'TimeoutError' || name === 'AbortError')) return 'no answer in time';
  const code = chain
    .map((e) => e.code)
    .find((c): c is string => typeof c === 'string' && connectionCode.test(c));
  if (code) return `connection failed (${code})`;
  const statuses = chain.map(httpStatusOf);
  const status = statuses.find((s) => s !== undefined);
  if (names.some((name) => deniedName.test(name)) || status === 401 || status === 403) {
    return status === 401 || status === 403 ? `access denied (HTTP ${status})` : 'access denied';
  }
  if (status === 429 || names.some((name) => throttledName.test(name))) return 'throttled';
  if (status !== undefined) {
    const reason = chain.map(statusReasonOf).find(Boolean);
    return `answered HTTP ${status}${reason ? ` ${reason}` : ''}`;
  }
  const name = names.find((n) => wordOnly.test(n) && n !== 'Error');
  return name ? `an unexpected error (${name})` : 'an unexpected error';
}
