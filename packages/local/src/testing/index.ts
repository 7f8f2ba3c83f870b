export { localUsers } from '../auth.ts';
export { freePort, portInUse } from '../ports.ts';
export { answerConsent, authorizeUrl, Browser, formOf, pkce, tokenRequest } from './browser.ts';
export { type TestClock, testClock } from './clock.ts';
export {
  startTestStack,
  testPasswordCost,
  testResourcePrefix,
  testToken,
  useTestStack,
} from './environment.ts';
export { type HttpAnswer, type HttpClient, httpClient } from './http.ts';
export { useChromium } from './use-chromium.ts';
