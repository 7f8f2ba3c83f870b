export { enforcePolicy, type PolicyHeldClient } from './middleware.ts';
export { type Authorizer, type Identity, policyAuthorizer, type Statement } from './policy.ts';
export {
  type ArnScope,
  type AuthorizationRequest,
  authorizationRequests,
  Service,
} from './requests.ts';
