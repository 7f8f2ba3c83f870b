export { authorize, Grant, GrantRole, type Permission, permissionNames, permissionRule } from './access.ts';
export { type AuditEvent, AuditEventList, type AuditStore, auditRetentionDays } from './audit.ts';
export {
  AuthConfigView,
  AuthorizeDecisionForm,
  LogoutForm,
  OAuthErrorView,
  PasswordSignInForm,
  RevokeForm,
  TokenAnswer,
  TokenRequestForm,
} from './endpoints.ts';
export {
  AuthMode,
  anonymousIdentity,
  devIdentity,
  grantsOfRole,
  type Identity,
  Role,
  sharedIdentity,
  signInModes,
} from './identity.ts';
export { IdentityView, identityView } from './identity-view.ts';
export { enforceRateLimit, type RateLimiter, windowStart } from './limits.ts';
export { homePath, safeReturnPath } from './return-to.ts';
export { csrfTokenOf, hashSecret, newSecret, SecretPrefix, sameSecret } from './secrets.ts';
export { type AuthSettings, AuthSettingsError, parseAuthSettings } from './settings.ts';
export {
  type AccessToken,
  type AuthorizationCode,
  accessTokenIdentity,
  cliClientId,
  currentGrants,
  endSession,
  exchangeCode,
  grantsFromClaims,
  isLoopbackRedirect,
  issueCode,
  Lifetime,
  liveSession,
  OAuthError,
  type PendingSignIn,
  refresh,
  revokeToken,
  type Session,
  type SignInDeps,
  type SignInGrant,
  type SignInStore,
  sessionIdentity,
  startSession,
} from './sign-in.ts';
export {
  IssuedToken,
  IssueTokenBody,
  issue as issueToken,
  type MachineToken,
  machineIdentity,
  mintToken,
  revoke as revokeMachineToken,
  TokenList,
  type TokenStore,
  TokenView,
} from './tokens.ts';
export {
  checkPassword,
  hashPassword,
  remove as removeUser,
  SaveUserBody,
  save as saveUser,
  type User,
  UserList,
  type UserStore,
  UserView,
  userView,
} from './users.ts';
