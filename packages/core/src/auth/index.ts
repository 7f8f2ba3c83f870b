export {
  anyProject,
  atLeast,
  Decision,
  decide,
  Grant,
  GrantRole,
  Permission,
  permissionNames,
  permissionRule,
  type RankedRole,
  readableProjects,
  roleOn,
  type Target,
} from './access.ts';
export { AuthMode, devIdentity, type Identity, Role } from './identity.ts';
export { IdentityView } from './identity-view.ts';
export { IssuedToken, IssueTokenBody, type TokenStore } from './tokens.ts';
