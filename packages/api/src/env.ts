import type { Auth, Log } from '@svc/core';

/** Hono context variables set by the middleware chain. */
export interface AppEnv {
  Variables: {
    requestId: string;
    identity: Auth.Identity;
    /** The server log, every entry tagged with this request's id. */
    log: Log;
  };
}
