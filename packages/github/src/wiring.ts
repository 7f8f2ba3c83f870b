import type { Forge } from '@svc/core';
import { gitHubForge } from './forge.ts';
import type { GitHubAppSettings } from './settings.ts';
import { webhookVerifier } from './signature.ts';

/** What a process needs of the app: the forge port, the webhook check, and what status may say of it. */
export interface ForgeWiring {
  forge: Forge.ForgePort | null;
  verify: Forge.SignatureCheck | null;
  configuration: Forge.ForgeConfiguration;
}

/** No settings: no app configured (deliveries are refused, forge routes say so). */
export function forgeWiring(settings: GitHubAppSettings | null): ForgeWiring {
  if (!settings) {
    return {
      forge: null,
      verify: null,
      configuration: { app_id: null, webhook_secret: false, previous_webhook_secret: false },
    };
  }
  return {
    forge: gitHubForge(settings),
    verify: webhookVerifier({ current: settings.webhookSecret, previous: settings.previousWebhookSecret }),
    configuration: {
      app_id: settings.appId,
      webhook_secret: true,
      previous_webhook_secret: settings.previousWebhookSecret !== undefined,
    },
  };
}
