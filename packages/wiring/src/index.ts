export {
  type Services,
  wireServices,
  wireStorage,
  wireWebhook,
} from './services.ts';
export {
  ScriptSettings,
  ServiceSettings,
  settingsFromEnvironment,
  WebhookSettings,
  WorkerSettings,
} from './settings.ts';
