import type { Forge } from '@svc/core';
import { lazyForge } from './lazy.ts';
import type { GitHubSettings } from './settings.ts';
import { webhookCheck } from './signature.ts';

/** What a process needs of the app: the forge port, the webhook check, and what status may say of it. */
export interface ForgeWiring {
  forge: Forge.ForgePort | null;
  verify: Forge.SignatureCheck | null;
  configuration: Forge.ForgeConfiguration;
}

/** The forge port of the app (none without one) and the signature check of its webhook secrets. */
export function forgeWiring(settings: GitHubSettings): ForgeWiring {
  const { app, webhookSecrets } = settings;
  return {
    forge: app ? lazyForge(app) : null,
    verify: webhookCheck(webhookSecrets),
    configuration: {
      app_id: app?.appId ?? null,
      webhook_secret: app !== null,
      previous_webhook_secret: app !== null && webhookSecrets?.previous !== undefined,
    },
  };
}
