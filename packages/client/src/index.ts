/**
 * `@svc/client`: the service's typed client, derived from its contract. Every operation is called
 * by its operationId, with inputs checked before anything is sent and answers typed:
 *
 *   const svc = createClient({ baseUrl: process.env.SVC_API_URL, token: process.env.SVC_API_TOKEN });
 *   const composition = await svc.call('createComposition', { body: { project, name, overrides } });
 *
 * Every failure is an {@link ApiError} carrying a problem (docs/ci.md shows a whole CI script).
 */
import { type Operations, operations } from '@svc/contract';
import { bindClient, type Client } from './client.ts';
import { type FetchTransportOptions, fetchTransport } from './fetch-transport.ts';

export type { Challenge } from './challenge.ts';
export {
  bindClient,
  type Client,
  type Transport,
  type WireAnswer,
  type WireRequest,
} from './client.ts';
export { ApiError, ClientCode, type RequestSummary } from './errors.ts';
export { type FetchTransportOptions, fetchTransport } from './fetch-transport.ts';

export type ServiceClient = Client<Operations>;

/** A client of every operation over `fetch`. */
export function createClient(options: FetchTransportOptions): ServiceClient {
  return bindClient(operations, fetchTransport(options));
}

/** A client of every operation over another transport (the CLI's, the API in process). */
export function clientOver(transport: Parameters<typeof bindClient>[1]): ServiceClient {
  return bindClient(operations, transport);
}
