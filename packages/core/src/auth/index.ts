export { authorize, type Permission, permissionNames, permissionRule } from './access.ts';
export { AuthMode, devIdentity, grantsOfRole, type Identity, Role } from './identity.ts';
export { IdentityView } from './identity-view.ts';
export { IssuedToken, IssueTokenBody, type TokenStore } from './tokens.ts';
