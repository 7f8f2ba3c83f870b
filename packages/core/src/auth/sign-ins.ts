/**
 * A person's live sign-ins as an Admin sees and ends them: browser sessions and CLI sign-ins (each
 * CLI sign-in is the family of its rotated refresh and access tokens). Ending one revokes it;
 * ending all moves the person's credentials epoch, so nothing issued before works again.
 */
import * as v from 'valibot';
import { ErrorCode, ProblemError } from '../errors.ts';
import type { Page, PageRequest } from '../paging.ts';
import { pageSchema } from '../paging.ts';
import { recordAudit } from './audit.ts';
import type { Identity } from './identity.ts';
import type { Session, SignInGrant } from './model.ts';
import type { SignInStore } from './ports.ts';
import { personRef, type UserDeps, usernameShape } from './users.ts';

const SignInKind = { Browser: 'browser_session', Cli: 'cli' } as const;

export const SignInView = v.object({
  id: v.string(),
  kind: v.enum(SignInKind),
  /** The CLI's OAuth client (`svc-cli`); null for a browser session. */
  client_id: v.nullable(v.string()),
  created_at: v.string(),
  /** When it ends at the latest (a session also ends after 2 idle hours). */
  expires_at: v.string(),
});
export type SignInView = v.InferOutput<typeof SignInView>;
export const SignInList = pageSchema(SignInView);

function viewOf(record: Session | SignInGrant): SignInView {
  const cli = 'client_id' in record;
  return {
    id: record.id,
    kind: cli ? SignInKind.Cli : SignInKind.Browser,
    client_id: cli ? record.client_id : null,
    created_at: record.created_at,
    expires_at: record.expires_at,
  };
}

type SignInAdminDeps = UserDeps & { signIns: SignInStore };

async function existing(deps: SignInAdminDeps, username: string) {
  const user = usernameShape.test(username) ? await deps.users.get(username) : null;
  if (!user) throw new ProblemError(ErrorCode.NotFound, `user "${username}" not found`);
  return user;
}

/** The person's sign-ins that still work (expired ones are left out). */
export async function list(
  deps: SignInAdminDeps,
  username: string,
  page: PageRequest,
): Promise<Page<SignInView>> {
  const user = await existing(deps, username);
  const found = await deps.signIns.listSignIns(personRef(user), page);
  const now = deps.clock.now().getTime();
  const live = (record: Session | SignInGrant) =>
    Date.parse(record.expires_at) > now &&
    !('idle_expires_at' in record && Date.parse(record.idle_expires_at) <= now);
  return { items: found.items.filter(live).map(viewOf), next_cursor: found.next_cursor };
}

export async function end(
  deps: SignInAdminDeps,
  caller: Identity,
  username: string,
  id: string,
): Promise<void> {
  const user = await existing(deps, username);
  if (!(await deps.signIns.revokeSignIn(user.id, id, deps.clock.now()))) {
    throw new ProblemError(ErrorCode.NotFound, `user "${username}" has no sign-in "${id}"`);
  }
  await recordAudit(deps, caller, {
    action: 'user.sign_ins_ended',
    project: null,
    target: username,
    data: { all: false, id },
  });
}
