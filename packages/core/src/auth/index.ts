/** Off the recipe's use-case files: many small use cases, one file per thing they act on. */
export { authorize, Grant, GrantRole, type Permission, permissionNames, permissionRule } from './access.ts';
export { auditRetentionDays } from './audit.ts';
export { bearerChallenge, Refusal, refusalDescriptions } from './challenge.ts';
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
export { countHits, enforceRateLimit, requireUnderLimits, windowStart } from './limits.ts';
export type {
  AccessToken,
  AuthorizationCode,
  MachineToken,
  OidcSubject,
  PendingSignIn,
  PersonRef,
  ProviderSignIn,
  ProviderTokens,
  Session,
  SignInGrant,
  User,
} from './model.ts';
export {
  type PasswordHashing,
  passwordHashing,
  type ScryptCost,
} from './passwords.ts';
export type {
  AuditStore,
  IdentityProviderPort,
  RateLimiter,
  SignInStore,
  TokenStore,
  UserStore,
} from './ports.ts';
export { startProviderSignIn } from './provider-sign-ins.ts';
export { homePath, safeReturnPath } from './return-to.ts';
export {
  type AuditEvent,
  AuditEventList,
  AuthConfigView,
  AuthorizeDecisionForm,
  IdentityView,
  identityView,
  LogoutForm,
  OAuthErrorView,
  PasswordSignInForm,
  RevokeForm,
  TokenAnswer,
  TokenRequestForm,
} from './schema.ts';
export { csrfTokenOf, hashSecret, newSecret, SecretPrefix, sameSecret } from './secrets.ts';
export { type AuthSettings, authEnvironment } from './settings.ts';
export {
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
  providerSignInSeconds,
  refresh,
  revokeToken,
  type SignInDeps,
  sessionIdentity,
  signInWasEnded,
  startSession,
} from './sign-in.ts';
export {
  deviceCookieValue,
  failedSignInThrottles,
  isOwnDevice,
  maxPasswordLength,
  ownDeviceSeconds,
  signInStartThrottle,
} from './sign-in-limits.ts';
export {
  end as endSignIn,
  list as listSignIns,
  SignInList,
  type SignInView,
} from './sign-ins.ts';
export {
  IssuedToken,
  IssueTokenBody,
  issue as issueToken,
  machineIdentity,
  mintToken,
  revoke as revokeMachineToken,
  TokenList,
  TokenStanding,
  TokenView,
  tokenStanding,
} from './tokens.ts';
export {
  checkPassword,
  endSignIns,
  newUserId,
  type PasswordDeps,
  personFromProvider,
  provision as provisionUser,
  remove as removeUser,
  SaveUserBody,
  save as saveUser,
  UserList,
  UserView,
  usernameShape,
  userView,
} from './users.ts';
