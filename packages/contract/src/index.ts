/**
 * The service's contract: every operation declared once, keyed by its operationId. The API binds a
 * handler to each (and refuses to start without one), the OpenAPI document is generated from them
 * (`@svc/contract/openapi`), and `@svc/client` calls them by operationId.
 */
import { catalogOperations } from './operations/catalog.ts';
import { compositionOperations } from './operations/compositions.ts';
import { draftOperations } from './operations/drafts.ts';
import { forgeOperations } from './operations/forge.ts';
import { frontendOperations } from './operations/frontends.ts';
import { insightOperations } from './operations/insight.ts';
import { installationOperations } from './operations/installation.ts';
import { peopleOperations } from './operations/people.ts';
import { serviceOperations } from './operations/service.ts';
import { signInOperations } from './operations/sign-in.ts';
import { sourceOperations } from './operations/sources.ts';

export {
  type ApiOperation,
  isOpen,
  type Operation,
  type OperationTable,
  type ParsedBody,
  type ParsedHeaders,
  type ParsedPath,
  type ParsedQuery,
  pathParamNames,
} from './operation.ts';
export { pageOf } from './query.ts';
export {
  catalogOperations,
  compositionOperations,
  draftOperations,
  forgeOperations,
  frontendOperations,
  insightOperations,
  installationOperations,
  peopleOperations,
  serviceOperations,
  signInOperations,
  sourceOperations,
};

export const operations = {
  ...serviceOperations,
  ...signInOperations,
  ...compositionOperations,
  ...insightOperations,
  ...catalogOperations,
  ...sourceOperations,
  ...peopleOperations,
  ...draftOperations,
  ...frontendOperations,
  ...installationOperations,
  ...forgeOperations,
};

export type Operations = typeof operations;
export type OperationId = keyof Operations;
