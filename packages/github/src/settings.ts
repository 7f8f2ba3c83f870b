/** The GitHub App's configuration, parsed once at the edge. The secrets it holds are never logged or returned. */
import type { Forge } from '@svc/core';
import * as v from 'valibot';
import { webhookVerifier } from './signature.ts';

export const GitHubAppSettings = v.object({
  appId: v.pipe(v.string(), v.regex(/^\d{1,12}$/, 'a numeric app id')),
  /** PEM, PKCS#1 as GitHub hands it out, or PKCS#8. */
  privateKey: v.pipe(v.string(), v.includes('PRIVATE KEY-----', 'a PEM private key')),
  webhookSecret: v.pipe(v.string(), v.minLength(16, 'at least 16 characters')),
  /** The secret being rotated out: deliveries signed with it are still accepted. */
  previousWebhookSecret: v.optional(v.pipe(v.string(), v.minLength(16))),
  /** The API's base URL; GitHub's own when absent (GitHub Enterprise Server or the local forge otherwise). */
  apiUrl: v.optional(v.pipe(v.string(), v.url())),
  /** Least milliseconds between two writes (GitHub asks for one per second; tests go faster). */
  writeIntervalMs: v.optional(v.pipe(v.number(), v.minValue(0)), 1000),
});
export type GitHubAppSettings = v.InferOutput<typeof GitHubAppSettings>;

/**
 * The app from `FORGE_APP_ID`, `FORGE_PRIVATE_KEY`, `FORGE_WEBHOOK_SECRET` (and
 * `FORGE_WEBHOOK_SECRET_PREVIOUS`, `FORGE_API_URL`); null when no app id is set. A malformed
 * value is named, never shown.
 */
export function gitHubAppFromEnvironment(env: Record<string, string | undefined>): GitHubAppSettings | null {
  if (!env.FORGE_APP_ID) return null;
  return parseNamingFields('GitHub App settings', GitHubAppSettings, {
    appId: env.FORGE_APP_ID,
    privateKey: env.FORGE_PRIVATE_KEY?.replaceAll('\\n', '\n'),
    ...webhookSecrets(env),
    ...(env.FORGE_API_URL ? { apiUrl: env.FORGE_API_URL } : {}),
  });
}

const WebhookSecrets = v.pick(GitHubAppSettings, ['webhookSecret', 'previousWebhookSecret']);

const webhookSecrets = (env: Record<string, string | undefined>) => ({
  webhookSecret: env.FORGE_WEBHOOK_SECRET,
  ...(env.FORGE_WEBHOOK_SECRET_PREVIOUS ? { previousWebhookSecret: env.FORGE_WEBHOOK_SECRET_PREVIOUS } : {}),
});

/**
 * Only what checks a delivery's signature, from `FORGE_WEBHOOK_SECRET` (and `…_PREVIOUS`); null
 * when unset. The webhook function gets these and not the app's private key, which it never needs.
 */
export function webhookVerifierFromEnvironment(
  env: Record<string, string | undefined>,
): Forge.SignatureCheck | null {
  if (!env.FORGE_WEBHOOK_SECRET) return null;
  const secrets = parseNamingFields('webhook secrets', WebhookSecrets, webhookSecrets(env));
  return webhookVerifier({ current: secrets.webhookSecret, previous: secrets.previousWebhookSecret });
}

/** The parsed value; a malformed field is named in the error, its value never shown. */
function parseNamingFields<TSchema extends v.GenericSchema>(
  what: string,
  schema: TSchema,
  input: unknown,
): v.InferOutput<TSchema> {
  const parsed = v.safeParse(schema, input);
  if (!parsed.success) {
    const names = parsed.issues.map((issue) => issue.path?.map((p) => String(p.key)).join('.') ?? '?');
    throw new Error(`invalid ${what}: ${[...new Set(names)].join(', ')}`);
  }
  return parsed.output;
}
