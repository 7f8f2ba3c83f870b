/**
 * The public webhook, a Hono app of its own (its own Lambda behind a function URL): it verifies the
 * signature, stores the delivery and answers 202. No other route, no cluster client, no bearer auth.
 */
import { ErrorCode, Forge, ProblemError } from '@svc/core';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import type { AppEnv } from './env.ts';
import { answerHeaders } from './middleware/headers.ts';
import { onError, problemResponse } from './problem.ts';

/** GitHub caps a delivery's payload at 25 MB; ours concern pull requests and installations. */
const maxDeliveryBytes = 5 * 1024 * 1024;

export interface WebhookDeps
  extends Pick<Forge.ForgeDeps, 'forgeStore' | 'jobs' | 'clock' | 'forgeSettings' | 'log'> {
  /** null when no app is configured: every delivery is refused as unsigned. */
  verify: Forge.SignatureCheck | null;
}

export function createWebhookApp(deps: WebhookDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // A request id of our own for the log: the forge's own is the delivery id.
  app.use(requestId({ headerName: '' }));
  app.use(answerHeaders);
  app.post(
    '/webhooks/forge',
    bodyLimit({
      maxSize: maxDeliveryBytes,
      onError: (c) =>
        problemResponse(c, new ProblemError(ErrorCode.PayloadTooLarge, 'The delivery is too large.')),
    }),
    async (c) => {
      const verify = deps.verify ?? (async () => false);
      const result = await Forge.ingest(deps, verify, {
        header: (name) => c.req.header(name),
        // The exact bytes received: the signature is over them, not over re-serialised JSON.
        body: await c.req.text(),
      });
      return c.json(result, 202);
    },
  );
  app.notFound((c) =>
    problemResponse(c, new ProblemError(ErrorCode.NotFound, `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError(onError);
  return app;
}
