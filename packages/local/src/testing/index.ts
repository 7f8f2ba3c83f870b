export { emulatorEndpoints, startTestStack, uniquePrefix } from './environment.ts';
export { type HttpAnswer, type HttpClient, httpClient } from './http.ts';
