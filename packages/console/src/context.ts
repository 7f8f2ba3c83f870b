import type { Auth, Catalog, Cluster, Compositions, Forge, Insight, Log } from '@svc/core';
import type { Context, Hono } from 'hono';

/**
 * What the API's auth edge tells the console: the console never reads a credential itself, so a
 * browser is who the API's one auth middleware says it is.
 */
export interface BrowserAuth {
  mode: Auth.AuthMode;
  /**
   * The browser's identity, with its session's CSRF token (null where there is no session: dev and
   * anonymous modes); null when it has to sign in first.
   */
  viewer(c: Context): Promise<{ identity: Auth.Identity; csrfToken: string | null } | null>;
  /** Refuses a change not sent by our own pages (`csrf_rejected`) or past the rate limit (`rate_limited`). */
  guardChange(c: Context, identity: Auth.Identity, formToken: string | undefined): Promise<void>;
}

export interface ConsoleDeps
  extends Compositions.CompositionDeps,
    Insight.InsightDeps,
    Catalog.CatalogDeps,
    Forge.ForgeDeps {
  /** The store of the composition use cases, which is also what an apply asks of live compositions. */
  compositions: Compositions.CompositionStore;
  /** The insight reads each composition on its own cluster; the plans only ask which there are. */
  clusters: Cluster.ClusterRegistry;
  tokens: Auth.TokenStore;
  users: Auth.UserStore;
  signIns: Auth.SignInStore;
  audit: Auth.AuditStore;
  browser: BrowserAuth;
  /** Where pull requests of forge-owned compositions are shown (default https://github.com). */
  forgeWebUrl?: string;
  /**
   * How often the live parts of pages refresh, in milliseconds (default: 2 s on a composition's
   * page, 3 s on the lists). Tests that watch a page change make it short.
   */
  refreshMs?: number;
}

export interface Viewer {
  identity: Auth.Identity;
  csrfToken: string | null;
  mode: Auth.AuthMode;
}

export interface ConsoleEnv {
  Variables: {
    /** Set by the API's request-id middleware. */
    requestId: string;
    /** The server log, every entry tagged with this request's id (set by the API). */
    log: Log;
    viewer: Viewer;
    /** A POST's form fields, read once by the change guard. */
    fields: Record<string, string>;
  };
}

export type ConsoleApp = Hono<ConsoleEnv>;
export type ConsoleContext = Context<ConsoleEnv>;
