export { type TestClock, testClock } from './clock.ts';
export { emulatorEndpoints, startTestStack, uniquePrefix } from './environment.ts';
export { type HttpAnswer, type HttpClient, httpClient } from './http.ts';
