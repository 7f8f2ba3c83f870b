import { Auth } from '@svc/core';

/**
 * Whether to offer an action: the same core rule the use case enforces, asked in advance so a page
 * shows a viewer no button it would be refused.
 */
export function can(identity: Auth.Identity, permission: Auth.Permission, project: string | null): boolean {
  try {
    Auth.authorize(identity, permission, { project });
    return true;
  } catch {
    return false;
  }
}
