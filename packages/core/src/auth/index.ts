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
export {
  countHits,
  enforceRateLimit,
  type RateLimiter,
  requireUnderLimits,
  windowStart,
} from './limits.ts';
export { homePath, safeReturnPath } from './return-to.ts';
export { csrfTokenOf, hashSecret, newSecret, SecretPrefix, sameSecret } from './secrets.ts';
export { type AuthSettings, AuthSettingsError, parseAuthSettings } from './settings.ts';
export {
  type AccessToken,
  type AuthorizationCode,
  accessTokenIdentity,
  cliClientId,
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
  failedSignInThrottles,
  maxPasswordLength,
  signInStartThrottle,
} from './sign-in-limits.ts';
export {
  end as endSignIn,
  list as listSignIns,
  SignInList,
  SignInView,
} from './sign-ins.ts';
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
  endSignIns,
  newUserId,
  type OidcSubject,
  type PersonRef,
  personFromProvider,
  provision as provisionUser,
  remove as removeUser,
  SaveUserBody,
  save as saveUser,
  type User,
  UserList,
  type UserStore,
  UserView,
  usernameShape,
  userView,
} from './users.ts';
