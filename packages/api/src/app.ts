import { consoleApp } from '@svc/console';
import {
  Auth,
  type Builds,
  bodyLimits,
  type Catalog,
  type Cluster,
  type Compositions,
  type Cursors,
  type DependencyCheck,
  type Drafts,
  ErrorCode,
  type Forge,
  type Frontends,
  type HealthReport,
  type Jobs,
  ProblemError,
  type VersionView,
} from '@svc/core';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { authenticate, browserAuth } from './auth.ts';
import type { IdentityProvider } from './auth-oidc.ts';
import { authServer, authWarning } from './auth-server.ts';
import { docsRoutes } from './docs.ts';
import type { AppEnv } from './env.ts';
import { probeDependencies } from './health.ts';
import { type McpSettings, mcpEndpoint } from './mcp.ts';
import { openApiDocument } from './openapi.ts';
import { outsideRoutes } from './outside-routes.ts';
import { onError, problemResponse } from './problem.ts';
import { createRegistry, type RouteSpec } from './registry.ts';
import { adminRoutes } from './routes/admin.ts';
import { authRoutes } from './routes/auth.ts';
import { catalogRoutes } from './routes/catalog.ts';
import { compositionRoutes } from './routes/compositions.ts';
import { draftRoutes } from './routes/drafts.ts';
import { forgeRoutes } from './routes/forge.ts';
import { frontendRoutes } from './routes/frontends.ts';
import { insightRoutes } from './routes/insight.ts';
import { installationRoutes } from './routes/installation.ts';
import { sourceRoutes } from './routes/sources.ts';
import { tokenRoutes } from './routes/tokens.ts';
import { userRoutes } from './routes/users.ts';

export interface AppDeps extends Compositions.CompositionDeps, Forge.ForgeDeps {
  /** The installation's auth mode and its settings, parsed once at the edge. */
  auth: Auth.AuthSettings;
  /** `oidc` mode's identity provider. */
  identityProvider?: IdentityProvider;
  health: readonly DependencyCheck[];
  builds: Builds.BuildStore;
  tokens: Auth.TokenStore;
  users: Auth.UserStore;
  signIns: Auth.SignInStore;
  rateLimiter: Auth.RateLimiter;
  audit: Auth.AuditStore;
  cluster: Cluster.ClusterPort;
  drafts: Drafts.DraftStore;
  frontends: Frontends.FrontendStore;
  /** What /v1/forge/status says of the app's configuration (presence only, never a secret). */
  forgeConfiguration: Forge.ForgeConfiguration;
  cursors: Cursors;
  /** Release and commit reported by `/version`. */
  build?: { release: string; commit: string };
  /** The agent endpoint `/mcp`. */
  mcp: McpSettings;
  /** What the installation grants a catalog (message topics, where baselines may be): apply and the installation check. */
  manifestLimits: Catalog.ManifestLimits;
  /** The job queue's dead-letter queue, for the replay. */
  deadLetters: Jobs.DeadLetterQueue;
  /** Where the console links pull requests (default https://github.com; the local forge locally). */
  forgeWebUrl?: string;
}

const requestIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

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

export function createApp(deps: AppDeps): { app: Hono<AppEnv>; routes: readonly RouteSpec[] } {
  const app = new Hono<AppEnv>();
  const release = deps.build ?? { release: 'dev', commit: 'unknown' };
  const serverLog = deps.log;

  app.use(async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given && requestIdPattern.test(given) ? given : crypto.randomUUID();
    c.set('requestId', requestId);
    c.set('log', (entry) => serverLog({ ...entry, request_id: requestId }));
    await next();
    c.header('x-request-id', c.get('requestId'));
  });

  if (deps.auth.mode === Auth.AuthMode.Dev) app.use(loopbackOnly);

  app.use(
    bodyLimit({
      maxSize: bodyLimits.maxBytes,
      onError: (c) =>
        problemResponse(
          c,
          new ProblemError(ErrorCode.PayloadTooLarge, `The body exceeds ${bodyLimits.maxBytes} bytes.`),
        ),
    }),
  );

  app.use('/v1/*', async (c, next) => {
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
  });

  app.get('/healthz', async (c) => {
    const report = await probeDependencies(deps.health, ['dynamodb', 'sqs', 'cluster'], c.get('log'));
    const body: HealthReport = {
      status: report.healthy ? 'ok' : 'degraded',
      dependencies: report.dependencies,
      auth: { mode: deps.auth.mode, warning: authWarning(deps.auth.mode) },
    };
    return c.json(body, report.healthy ? 200 : 503);
  });
  app.get('/version', (c) =>
    c.json({ service: 'preview-composition-service', ...release } satisfies VersionView),
  );

  const authDeps = {
    settings: deps.auth,
    tokens: deps.tokens,
    signIns: deps.signIns,
    users: deps.users,
    rateLimiter: deps.rateLimiter,
    clock: deps.clock,
  };
  authServer(app, { ...authDeps, provider: deps.identityProvider ?? null });
  const authenticated = authenticate(authDeps);
  app.use('/v1/*', async (c, next) => {
    if (c.req.path === '/v1/openapi.json') return next();
    return authenticated(c, next);
  });

  const registry = createRegistry(app);
  compositionRoutes(registry, {
    ...deps,
    liveCompositionQuota:
      deps.auth.mode === Auth.AuthMode.Dev ? undefined : deps.auth.limits.live_compositions_per_project,
  });
  insightRoutes(registry, deps);
  catalogRoutes(registry, deps);
  sourceRoutes(registry, deps);
  tokenRoutes(registry, deps);
  userRoutes(registry, { ...deps, settings: deps.auth });
  draftRoutes(registry, deps);
  frontendRoutes(registry, deps);
  authRoutes(registry, { ...deps, settings: deps.auth });
  installationRoutes(registry, deps);
  adminRoutes(registry, deps);
  forgeRoutes(registry, deps);

  app.route('/console', consoleApp({ ...deps, browser: browserAuth(authDeps) }));
  docsRoutes(app);
  app.get('/', (c) => c.redirect('/console/compositions', 302));

  const document = openApiDocument(registry.routes, outsideRoutes, { version: release.release });
  app.get('/v1/openapi.json', (c) => c.json(document));

  mcpEndpoint(app, {
    auth: authDeps,
    settings: deps.mcp,
    version: release.release,
  });

  app.notFound((c) => {
    const allowed = registry.allowed(c.req.path);
    if (allowed.length > 0) {
      return problemResponse(
        c,
        new ProblemError(ErrorCode.MethodNotAllowed, `${c.req.method} is not allowed on ${c.req.path}.`, {
          headers: { allow: allowed.map((m) => m.toUpperCase()).join(', ') },
        }),
      );
    }
    return problemResponse(
      c,
      new ProblemError(ErrorCode.NotFound, `No route for ${c.req.method} ${c.req.path}.`),
    );
  });
  app.onError(onError);
  return { app, routes: registry.routes };
}
