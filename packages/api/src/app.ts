import { consoleApp } from '@svc/console';
import { openApiDocument } from '@svc/contract/openapi';
import {
  Auth,
  type Builds,
  bodyLimits,
  type Catalog,
  type Checks,
  type Cluster,
  type Compositions,
  type Cursors,
  type Drafts,
  ErrorCode,
  type Forge,
  type Frontends,
  type Health,
  type Jobs,
  type Log,
  ProblemError,
} from '@svc/core';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { requestId } from 'hono/request-id';
import { bindOperations } from './bind.ts';
import { docsRoutes } from './docs.ts';
import type { AppEnv } from './env.ts';
import { catalogHandlers } from './handlers/catalog.ts';
import { compositionHandlers } from './handlers/compositions.ts';
import { draftHandlers } from './handlers/drafts.ts';
import { forgeHandlers } from './handlers/forge.ts';
import { frontendHandlers } from './handlers/frontends.ts';
import { insightHandlers } from './handlers/insight.ts';
import { installationHandlers } from './handlers/installation.ts';
import { peopleHandlers } from './handlers/people.ts';
import { serviceHandlers } from './handlers/service.ts';
import { sourceHandlers } from './handlers/sources.ts';
import { healthProbe } from './health.ts';
import { type McpSettings, mcpEndpoint } from './mcp.ts';
import { type AuthDeps, authenticate, browserAuth, identify } from './middleware/auth.ts';
import { crossOrigin } from './middleware/cross-origin.ts';
import { answerHeaders } from './middleware/headers.ts';
import { onError, problemResponse } from './problem.ts';
import type { IdentityProvider } from './sign-in/oidc.ts';
import { signInHandlers } from './sign-in/server.ts';

export interface AppDeps extends Compositions.CompositionDeps, Forge.ForgeDeps {
  /** The installation's auth mode and its settings, parsed once at the edge. */
  auth: Auth.AuthSettings;
  /** `oidc` mode's identity provider. */
  identityProvider?: IdentityProvider;
  health: readonly Health.DependencyCheck[];
  builds: Builds.BuildStore;
  tokens: Auth.TokenStore;
  users: Auth.UserStore;
  passwords: Auth.PasswordHashing;
  signIns: Auth.SignInStore;
  rateLimiter: Auth.RateLimiter;
  audit: Auth.AuditStore;
  /** Every cluster of the stage, by the name baselines give it. */
  clusters: Cluster.ClusterRegistry;
  drafts: Drafts.DraftStore;
  frontends: Frontends.FrontendStore;
  checks: Checks.CheckStore;
  /** What /v1/forge/status says of the app's configuration (presence only, never a secret). */
  forgeConfiguration: Forge.ForgeConfiguration;
  cursors: Cursors;
  /** Release and commit reported by `/version`. */
  build?: { release: string; commit: string };
  /** The agent endpoint `/mcp`. */
  mcp: McpSettings;
  /** What the installation grants a catalog (message topics, where baselines may be, its clusters): apply and the installation check. */
  manifestLimits: Catalog.ManifestLimits;
  /** The job queue's dead-letter queue, for the replay. */
  deadLetters: Jobs.DeadLetterQueue;
  /** Where the console links pull requests (default https://github.com; the local forge locally). */
  forgeWebUrl?: string;
  /** How often the console's live parts refresh, in milliseconds (default: each page's own). */
  refreshMs?: number;
}

/** Names that can only ever mean this machine: a browser never asks DNS for them. */
function isLoopbackName(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}

/**
 * Dev mode makes every caller the Admin, so it answers only requests addressed to a loopback name:
 * a page on evil.example whose name resolves to 127.0.0.1 (DNS rebinding) gets nothing from it.
 */
const loopbackOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  let hostname = '';
  try {
    hostname = new URL(`http://${c.req.header('host') ?? ''}`).hostname;
  } catch {
    hostname = '';
  }
  if (!isLoopbackName(hostname)) {
    throw new ProblemError(
      ErrorCode.Forbidden,
      'This dev-mode server answers only loopback host names (127.0.0.1, localhost); run another auth mode to serve other names.',
    );
  }
  await next();
};

/** A known path asked with a method it does not serve; `Allow` lists what it does (HEAD goes without saying). */
function methodProblem(c: Context<AppEnv>, methods: string[]): Response {
  const allow = methods.filter((method) => method !== 'HEAD').join(', ');
  return problemResponse(
    c,
    new ProblemError(ErrorCode.MethodNotAllowed, `${c.req.method} is not allowed on ${c.req.path}.`, {
      headers: { allow },
    }),
  );
}

/** Each request's log entries carry its request id. */
function requestLog(serverLog: Log): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = c.get('requestId');
    c.set('log', (entry) => serverLog({ ...entry, request_id: id }));
    await next();
  };
}

const payloadLimit = bodyLimit({
  maxSize: bodyLimits.maxBytes,
  onError: (c) =>
    problemResponse(
      c,
      new ProblemError(ErrorCode.PayloadTooLarge, `The body exceeds ${bodyLimits.maxBytes} bytes.`),
    ),
});

/** A POST, PATCH or PUT with a body says it is JSON, or gets a 415 before anything reads it. */
const jsonBodiesOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (['POST', 'PATCH', 'PUT'].includes(c.req.method)) {
    const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
    const empty = c.req.header('content-length') === '0';
    if (!empty && type !== 'application/json') {
      throw new ProblemError(
        ErrorCode.UnsupportedMediaType,
        `Content-Type must be application/json (got ${type ?? 'none'}).`,
      );
    }
  }
  await next();
};

/** Every operation but the OpenAPI document needs a credential. */
function authenticatedApi(authDeps: AuthDeps): MiddlewareHandler<AppEnv> {
  const authenticated = authenticate(authDeps);
  return async (c, next) => {
    if (c.req.path === '/v1/openapi.json') return next();
    return authenticated(c, next);
  };
}

/**
 * Whether the mode identifies the caller of an open route. Any failure (no credential, a bad one,
 * a token store that does not answer) reads as nobody: the route still answers, with less.
 */
function identifiedBy(authDeps: AuthDeps) {
  return (c: Context<AppEnv>) =>
    identify(authDeps, c).then(
      () => true,
      () => false,
    );
}

/** A handler for every operation of the contract, each given the deps it needs. */
function operationHandlers(deps: AppDeps, authDeps: AuthDeps, release: NonNullable<AppDeps['build']>) {
  return {
    ...serviceHandlers({
      health: healthProbe(deps.health, ['dynamodb', 'sqs']),
      identified: identifiedBy(authDeps),
      mode: deps.auth.mode,
      release,
    }),
    ...signInHandlers(authDeps),
    ...compositionHandlers({
      ...deps,
      liveCompositionQuota:
        deps.auth.mode === Auth.AuthMode.Dev ? undefined : deps.auth.limits.live_compositions_per_project,
    }),
    ...insightHandlers(deps),
    ...catalogHandlers(deps),
    ...sourceHandlers(deps),
    ...peopleHandlers({ ...deps, settings: deps.auth }),
    ...draftHandlers(deps),
    ...frontendHandlers(deps),
    ...installationHandlers(deps),
    ...forgeHandlers(deps),
  };
}

export function createApp(deps: AppDeps): { app: Hono<AppEnv> } {
  const app = new Hono<AppEnv>();
  const release = deps.build ?? { release: 'dev', commit: 'unknown' };
  const authDeps: AuthDeps = {
    settings: deps.auth,
    tokens: deps.tokens,
    signIns: deps.signIns,
    users: deps.users,
    passwords: deps.passwords,
    rateLimiter: deps.rateLimiter,
    clock: deps.clock,
    cursors: deps.cursors,
    provider: deps.identityProvider ?? null,
  };

  // The caller's request id if it is a safe token (letters, digits, _ - =, at most 128), else a new UUID.
  app.use(requestId({ limitLength: 128 }));
  app.use(answerHeaders);
  app.use(requestLog(deps.log));
  if (deps.auth.mode === Auth.AuthMode.Dev) app.use(loopbackOnly);
  // Before the 405s: a preflight is an OPTIONS, which no route serves.
  app.use(crossOrigin(authDeps));
  app.use('/v1/*', methodNotAllowed({ app, onMethodNotAllowed: methodProblem }));
  app.use(payloadLimit);
  app.use('/v1/*', jsonBodiesOnly);
  app.use('/v1/*', authenticatedApi(authDeps));

  bindOperations(app, operationHandlers(deps, authDeps, release));
  app.route('/console', consoleApp({ ...deps, browser: browserAuth(authDeps) }));
  docsRoutes(app);
  app.get('/', (c) => c.redirect('/console/compositions', 302));
  const document = openApiDocument({ version: release.release });
  app.get('/v1/openapi.json', (c) => c.json(document));
  mcpEndpoint(app, { auth: authDeps, settings: deps.mcp, version: release.release });

  app.notFound((c) =>
    problemResponse(c, new ProblemError(ErrorCode.NotFound, `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError(onError);
  return { app };
}
