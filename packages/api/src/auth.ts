import { Auth, ErrorCode, ProblemError } from '@svc/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';

/** Resolves a presented bearer token to its identity, or null when it is unknown or revoked. */
type TokenVerifier = (token: string) => Promise<Auth.Identity | null>;

export type AuthConfig =
  | { mode: typeof Auth.AuthMode.Dev }
  | { mode: typeof Auth.AuthMode.Token; verifyToken: TokenVerifier };

const bearer = /^Bearer\s+([\x21-\x7e]{1,4096})$/i;

/** The single auth middleware in front of every `/v1` route. */
export function authenticate(config: AuthConfig): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (config.mode === Auth.AuthMode.Dev) {
      c.set('identity', Auth.devIdentity);
      return next();
    }
    const header = c.req.header('authorization');
    const token = header ? bearer.exec(header)?.[1] : undefined;
    if (!token) {
      throw new ProblemError(ErrorCode.Unauthenticated, 'Send Authorization: Bearer <token>.', {
        headers: { 'www-authenticate': 'Bearer' },
      });
    }
    const identity = await config.verifyToken(token);
    if (!identity) {
      throw new ProblemError(ErrorCode.Unauthenticated, 'The bearer token is unknown, expired or revoked.', {
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      });
    }
    c.set('identity', identity);
    return next();
  };
}
