/** The GitHub App's configuration, parsed once at the edge. The secrets it holds are never logged or returned. */
import * as v from 'valibot';

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
  const parsed = v.safeParse(GitHubAppSettings, {
    appId: env.FORGE_APP_ID,
    privateKey: env.FORGE_PRIVATE_KEY?.replaceAll('\\n', '\n'),
    webhookSecret: env.FORGE_WEBHOOK_SECRET,
    ...(env.FORGE_WEBHOOK_SECRET_PREVIOUS
      ? { previousWebhookSecret: env.FORGE_WEBHOOK_SECRET_PREVIOUS }
      : {}),
    ...(env.FORGE_API_URL ? { apiUrl: env.FORGE_API_URL } : {}),
  });
  if (!parsed.success) {
    const names = parsed.issues.map((issue) => issue.path?.map((p) => String(p.key)).join('.') ?? '?');
    throw new Error(`invalid GitHub App settings: ${[...new Set(names)].join(', ')}`);
  }
  return parsed.output;
}

const WebhookSecrets = v.object({
  current: GitHubAppSettings.entries.webhookSecret,
  previous: GitHubAppSettings.entries.previousWebhookSecret,
});
export type WebhookSecrets = v.InferOutput<typeof WebhookSecrets>;

/**
 * Only what checks a delivery's signature: `FORGE_WEBHOOK_SECRET` (and `…_PREVIOUS`); null when
 * unset. The webhook function gets these and not the app's private key, which it never needs.
 */
export function webhookSecretsFromEnvironment(
  env: Record<string, string | undefined>,
): WebhookSecrets | null {
  if (!env.FORGE_WEBHOOK_SECRET) return null;
  const parsed = v.safeParse(WebhookSecrets, {
    current: env.FORGE_WEBHOOK_SECRET,
    ...(env.FORGE_WEBHOOK_SECRET_PREVIOUS ? { previous: env.FORGE_WEBHOOK_SECRET_PREVIOUS } : {}),
  });
  if (!parsed.success) {
    const names = parsed.issues.map((issue) => issue.path?.map((p) => String(p.key)).join('.') ?? '?');
    throw new Error(`invalid webhook secrets: ${[...new Set(names)].join(', ')}`);
  }
  return parsed.output;
}
