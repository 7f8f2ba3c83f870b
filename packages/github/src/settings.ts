/**
 * The github part of the service's settings: the GitHub App (`FORGE_*`), parsed once at the entry.
 * The secrets it holds are never logged or returned, nor quoted when malformed.
 */
import { variablePath } from '@svc/core';
import * as v from 'valibot';

export interface GitHubAppSettings {
  appId: string;
  /** PEM, PKCS#1 as GitHub hands it out, or PKCS#8. */
  privateKey: string;
  /** The API's base URL; GitHub's own when absent (GitHub Enterprise Server or the local forge otherwise). */
  apiUrl?: string | undefined;
  /** Least milliseconds between two writes (GitHub asks for one per second; the local stack goes faster). */
  writeIntervalMs: number;
}

interface WebhookSecrets {
  current: string;
  /** The secret being rotated out: deliveries signed with it are still accepted. */
  previous?: string | undefined;
}

export interface GitHubSettings {
  /** Null without `FORGE_APP_ID`: no app (forge routes say so, deliveries change nothing). */
  app: GitHubAppSettings | null;
  /** Null without `FORGE_WEBHOOK_SECRET`: every delivery is refused as unsigned. */
  webhookSecrets: WebhookSecrets | null;
}

const WebhookSecret = v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'));

/** The variables as given; an empty one is unset (SST's placeholder for an optional secret nobody set). */
const ForgeVariables = v.object({
  FORGE_APP_ID: v.optional(v.pipe(v.string(), v.regex(/^\d{1,12}$/, 'must be a numeric app id'))),
  FORGE_PRIVATE_KEY: v.optional(
    v.pipe(
      v.string(),
      // An environment file keeps the PEM on one line, its newlines written `\n`.
      v.transform((key) => key.replaceAll('\\n', '\n')),
      v.includes('PRIVATE KEY-----', 'must be a PEM private key'),
    ),
  ),
  FORGE_WEBHOOK_SECRET: v.optional(WebhookSecret),
  FORGE_WEBHOOK_SECRET_PREVIOUS: v.optional(WebhookSecret),
  FORGE_API_URL: v.optional(v.pipe(v.string(), v.url('must be a URL'))),
  FORGE_WRITE_INTERVAL_MS: v.optional(
    v.pipe(v.string(), v.digits('must be a whole number of milliseconds'), v.transform(Number)),
    '1000',
  ),
});

export const GitHubEnvironment = v.pipe(
  v.looseObject({}),
  v.transform((env) => Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''))),
  ForgeVariables,
  v.rawTransform(({ dataset, addIssue, NEVER }): GitHubSettings => {
    const env = dataset.value;
    const webhookSecrets = env.FORGE_WEBHOOK_SECRET
      ? { current: env.FORGE_WEBHOOK_SECRET, previous: env.FORGE_WEBHOOK_SECRET_PREVIOUS }
      : null;
    if (!env.FORGE_APP_ID) return { app: null, webhookSecrets };
    // An app without its key cannot act, and without a webhook secret never hears of a pull request.
    for (const variable of ['FORGE_PRIVATE_KEY', 'FORGE_WEBHOOK_SECRET'] as const) {
      if (!env[variable])
        addIssue({ message: 'is needed with FORGE_APP_ID', path: variablePath(env, variable) });
    }
    if (!env.FORGE_PRIVATE_KEY || !webhookSecrets) return NEVER;
    const app = {
      appId: env.FORGE_APP_ID,
      privateKey: env.FORGE_PRIVATE_KEY,
      apiUrl: env.FORGE_API_URL,
      writeIntervalMs: env.FORGE_WRITE_INTERVAL_MS,
    };
    return { app, webhookSecrets };
  }),
);
