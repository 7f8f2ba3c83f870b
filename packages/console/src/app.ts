/**
 * The web console: server-rendered pages over the core use cases, mounted by the API on its own
 * origin. Reads work without JavaScript; htmx (pinned, served from here) refreshes the live parts.
 */
import { DependencyUnavailableError, ErrorCode, ProblemError } from '@svc/core';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { loadAssets } from './assets.ts';
import type { ConsoleApp, ConsoleContext, ConsoleDeps, ConsoleEnv } from './context.ts';
import { html } from './html.ts';
import { base, page } from './layout.ts';
import { catalogPages } from './pages/catalog.ts';
import { changePages } from './pages/changes.ts';
import { compositionPages } from './pages/composition.ts';
import { compositionListPages } from './pages/compositions.ts';
import { peoplePages } from './pages/people.ts';
import { prPreviewPages } from './pages/pr-previews.ts';
import { signInPages } from './pages/sign-in.ts';
import { tokenPages } from './pages/tokens.ts';
import { problemNotice, render } from './parts.ts';

/**
 * No inline script or style anywhere; only this origin's files; never framed; the referrer policy
 * keeps the origin, so form posts carry the `Origin` the CSRF check wants.
 */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  xFrameOptions: 'DENY',
  xContentTypeOptions: true,
  referrerPolicy: 'same-origin',
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

export function consoleApp(deps: ConsoleDeps): ConsoleApp {
  const app = new Hono<ConsoleEnv>();
  const assets = loadAssets();

  app.use(pageHeaders);
  app.use(async (c, next) => {
    await next();
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
  });

  for (const asset of assets.all) {
    app.get(asset.path, (c) => {
      c.header('content-type', asset.type);
      c.header('cache-control', 'public, max-age=31536000, immutable');
      return c.body(asset.body);
    });
  }

  signInPages(app, deps, assets);

  app.use(async (c, next) => {
    const viewer = await deps.browser.viewer(c);
    if (!viewer) {
      const url = new URL(c.req.url);
      const signIn = `${base}/sign-in?return_to=${encodeURIComponent(url.pathname + url.search)}`;
      if (c.req.header('hx-request')) {
        c.header('hx-redirect', signIn);
        return c.body(null, 204);
      }
      return c.redirect(signIn, 303);
    }
    c.set('viewer', { ...viewer, mode: deps.browser.mode });
    if (c.req.method === 'POST') {
      const body = await c.req.parseBody();
      const fields = Object.fromEntries(
        Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      await deps.browser.guardChange(c, viewer.identity, fields.csrf_token);
      c.set('fields', fields);
    }
    return next();
  });

  app.get('/', (c) => c.redirect(`${base}/compositions`, 303));
  compositionListPages(app, deps, assets);
  changePages(app, deps, assets);
  compositionPages(app, deps, assets);
  prPreviewPages(app, deps, assets);
  catalogPages(app, deps, assets);
  tokenPages(app, deps, assets);
  peoplePages(app, deps, assets);

  app.all('*', (c) => errorPage(c, new ProblemError(ErrorCode.NotFound, `No page at ${c.req.path}.`)));
  app.onError((error, c) => {
    if (error instanceof ProblemError) return errorPage(c, error);
    if (error instanceof DependencyUnavailableError) {
      return errorPage(
        c,
        new ProblemError(ErrorCode.DependencyUnavailable, 'A backing service did not answer; retry shortly.'),
      );
    }
    c.get('log')({
      level: 'error',
      msg: 'unhandled console error',
      method: c.req.method,
      path: c.req.path,
      error: { name: error.name, message: error.message, stack: error.stack },
    });
    return errorPage(
      c,
      new ProblemError(ErrorCode.Internal, `Unexpected error; report request id ${c.get('requestId')}.`),
    );
  });

  function errorPage(c: ConsoleContext, error: ProblemError) {
    const notice = problemNotice(error);
    if (c.req.header('hx-request')) return render(c, notice, error.status, true);
    const viewer = c.get('viewer') ?? null;
    const body = html`<h1>${error.title}</h1>${notice}<p><a href=${`${base}/compositions`}>Back to the compositions</a></p>`;
    return render(c, page(assets, { title: error.title, section: null, viewer, body }), error.status);
  }

  return app;
}
