export { type TestClock, testClock } from './clock.ts';
export {
  emulatorEndpoints,
  startTestStack,
  type TestEnvironment,
  type TestStackOptions,
  type UseTestStackOptions,
  uniquePrefix,
  useTestStack,
} from './environment.ts';
export { type HttpAnswer, type HttpClient, httpClient } from './http.ts';
