/**
 * Roles, grants and permissions for wave 2, exported ahead of their wiring: the next change
 * replaces `Role` and `Identity` below with them and checks them in the routes.
 * @public
 */
export {
  anyProject,
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
