import { type DependencyCheck, ErrorCode, ProblemError } from '@svc/core';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { type AuthConfig, authenticate } from './auth.ts';
import type { AppEnv } from './env.ts';
import { probeDependencies } from './health.ts';
import { onError, problemResponse } from './problem.ts';

export const maxBodyBytes = 256 * 1024;

export interface AppDeps {
  auth: AuthConfig;
  health: readonly DependencyCheck[];
  /** Release and commit reported by `/version`. */
  build?: { release: string; commit: string };
}

const requestIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    const given = c.req.header('x-request-id');
    c.set('requestId', given && requestIdPattern.test(given) ? given : crypto.randomUUID());
    await next();
    c.header('x-request-id', c.get('requestId'));
  });

  app.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        problemResponse(
          c,
          new ProblemError(ErrorCode.PayloadTooLarge, `The body exceeds ${maxBodyBytes} bytes.`),
        ),
    }),
  );

  app.use(async (c, next) => {
    if (['POST', 'PATCH', 'PUT'].includes(c.req.method) && c.req.path.startsWith('/v1/')) {
      const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
      const hasBody =
        c.req.header('content-length') !== '0' || c.req.header('transfer-encoding') !== undefined;
      if (hasBody && type !== 'application/json') {
        throw new ProblemError(
          ErrorCode.UnsupportedMediaType,
          `Content-Type must be application/json (got ${type ?? 'none'}).`,
        );
      }
    }
    await next();
  });

  app.get('/healthz', async (c) => {
    const report = await probeDependencies(deps.health, ['dynamodb', 'sqs', 'cluster']);
    return c.json(
      { status: report.healthy ? 'ok' : 'degraded', dependencies: report.dependencies },
      report.healthy ? 200 : 503,
    );
  });

  app.get('/version', (c) =>
    c.json({
      service: 'preview-composition-service',
      ...(deps.build ?? { release: 'dev', commit: 'unknown' }),
    }),
  );

  app.use('/v1/*', authenticate(deps.auth));

  app.notFound((c) =>
    problemResponse(c, new ProblemError(ErrorCode.NotFound, `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError(onError);
  return app;
}
