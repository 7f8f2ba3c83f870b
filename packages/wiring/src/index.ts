export {
  type Services,
  wireServices,
  wireStorage,
  wireWebhook,
} from './services.ts';
export {
  LocalStackSettings,
  NodeServiceSettings,
  ScriptSettings,
  ServiceSettings,
  settingsFromEnvironment,
  WebhookSettings,
  WorkerSettings,
} from './settings.ts';
