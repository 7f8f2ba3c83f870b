/**
 * Hono's own middlewares, set up once for every app of the API (the service and the webhook):
 * no answer may be sniffed into another media type. The console adds its pages' own headers.
 */
import { secureHeaders } from 'hono/secure-headers';

export const answerHeaders = secureHeaders({
  xContentTypeOptions: true,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});
