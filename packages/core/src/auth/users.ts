/**
 * People known to the service. A person is their immutable `id`, not their name: a name deleted
 * and created again is someone new. Their `credentials_epoch` is stamped on every session and CLI
 * sign-in they get; it moves on when a password changes, when they are disabled, or when an Admin
 * ends their sign-ins, and every request checks it — so access ends at the next request.
 *
 * In `password` mode a person has a password hash. In `oidc` mode they are the identity provider's
 * (issuer, `sub`) pair — never the username claim, which people may edit — and their record is made
 * at their first sign-in (or by an Admin naming their `sub`); its grants add to the claims'.
 */
import * as v from 'valibot';
import { sha256 } from '../canonical.ts';
import type { Clock } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { newSortableId } from '../names.ts';
import { pageSchema } from '../paging.ts';
import { parseOrThrow } from '../validation.ts';
import { Grant } from './access.ts';
import { recordAudit } from './audit.ts';
import { AuthMode, type Identity } from './identity.ts';
import type { OidcSubject, PersonRef, User } from './model.ts';
import type { PasswordHashing } from './passwords.ts';
import type { AuditStore, UserStore } from './ports.ts';

/** A user name's shape: checked before a name is counted, read or used as a key. */
export const usernameShape = /^[a-z0-9][a-z0-9._-]{0,62}$/;

const Username = v.pipe(
  v.string(),
  v.regex(usernameShape, 'username must be 1–63 characters of a-z 0-9 . _ -'),
);

const minPasswordLength = 12;

export const SaveUserBody = v.strictObject({
  grants: v.pipe(v.array(Grant), v.maxLength(50)),
  /** Sets or replaces the password; absent keeps the current one. */
  password: v.optional(
    v.pipe(
      v.string(),
      v.minLength(minPasswordLength, `password must be at least ${minPasswordLength} characters`),
      v.maxLength(1024),
    ),
  ),
  disabled: v.optional(v.boolean(), false),
  /**
   * oidc mode: the identity provider's `sub` for this person, to create their record before their
   * first sign-in. Fixed once set.
   */
  oidc_subject: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(255))),
});
type SaveUserBody = v.InferOutput<typeof SaveUserBody>;

export const UserView = v.object({
  username: v.string(),
  subject: v.string(),
  id: v.string(),
  grants: v.array(Grant),
  has_password: v.boolean(),
  disabled: v.boolean(),
  /** The identity provider's subject (oidc), or null. */
  oidc_subject: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
});
export type UserView = v.InferOutput<typeof UserView>;
export const UserList = pageSchema(UserView);

export function userView(user: User): UserView {
  return {
    username: user.username,
    subject: `user:${user.username}`,
    id: user.id,
    grants: user.grants,
    has_password: user.password_hash !== null,
    disabled: user.disabled,
    oidc_subject: user.oidc_subject?.sub ?? null,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}

export function newUserId(now: Date): string {
  return newSortableId('usr', now);
}

/** The person a credential names, if it still may act: same person, same epoch, not disabled. */
export async function personNow(users: UserStore, credential: PersonRef): Promise<User | null> {
  const user = await users.get(credential.username);
  const same =
    user !== null &&
    !user.disabled &&
    user.id === credential.user_id &&
    user.credentials_epoch === credential.credentials_epoch;
  return same ? user : null;
}

export function personRef(user: User): PersonRef {
  return { username: user.username, user_id: user.id, credentials_epoch: user.credentials_epoch };
}

/** Where people are kept and how their passwords are hashed. */
export interface PasswordDeps {
  users: UserStore;
  passwords: PasswordHashing;
}

/**
 * The user if `password` is theirs and they may sign in; null otherwise, in about the same time.
 * A hash of another cost is replaced by one of today's.
 */
export async function checkPassword(
  deps: PasswordDeps,
  username: string,
  password: string,
): Promise<User | null> {
  const { users, passwords } = deps;
  const user = await users.get(username);
  if (!user?.password_hash || user.disabled) {
    await passwords.verifyNobody(password);
    return null;
  }
  if (!(await passwords.check(password, user.password_hash))) return null;
  if (passwords.needsRehash(user.password_hash)) {
    await users.setPasswordHash(username, user.password_hash, await passwords.hash(password));
  }
  return user;
}

export interface UserDeps {
  users: UserStore;
  audit: AuditStore;
  clock: Clock;
  mode: AuthMode;
}

function concurrentChange(username: string): ProblemError {
  return new ProblemError(
    ErrorCode.ConcurrentChange,
    `user "${username}" changed while this was saved; retry.`,
  );
}

function invalidSubject(message: string): ProblemError {
  return new ProblemError(ErrorCode.ValidationFailed, message, {
    errors: [{ path: '/oidc_subject', message }],
  });
}

/** The new record's subject link: required for a new person in oidc mode, fixed once set. */
function subjectOf(
  deps: UserDeps & { issuer: string | null },
  current: User | null,
  given: string | undefined,
): OidcSubject | null {
  if (current?.oidc_subject) {
    if (given !== undefined && given !== current.oidc_subject.sub) {
      throw invalidSubject('oidc_subject is fixed once set; delete the user to link someone else');
    }
    return current.oidc_subject;
  }
  if (given === undefined) {
    if (!current && deps.mode === AuthMode.Oidc) {
      throw invalidSubject(
        'a new user of an oidc installation needs oidc_subject (their identity provider sub); or let them sign in once, then save them',
      );
    }
    return null;
  }
  if (deps.mode !== AuthMode.Oidc || !deps.issuer) {
    throw invalidSubject('oidc_subject is only for oidc installations');
  }
  return { issuer: deps.issuer, sub: given };
}

export async function save(
  deps: UserDeps & PasswordDeps & { issuer: string | null },
  caller: Identity,
  username: string,
  body: SaveUserBody,
): Promise<User> {
  parseOrThrow(Username, username);
  const now = deps.clock.now();
  const current = await deps.users.get(username);
  const passwordChanged = body.password !== undefined;
  const endsSignIns = passwordChanged || (body.disabled && !current?.disabled);
  const user: User = {
    id: current?.id ?? newUserId(now),
    username,
    grants: body.grants,
    password_hash:
      body.password === undefined
        ? (current?.password_hash ?? null)
        : await deps.passwords.hash(body.password),
    disabled: body.disabled,
    credentials_epoch: (current?.credentials_epoch ?? 0) + (current && endsSignIns ? 1 : 0),
    oidc_subject: subjectOf(deps, current, body.oidc_subject),
    created_at: current?.created_at ?? now.toISOString(),
    updated_at: now.toISOString(),
  };
  const written = current
    ? await deps.users.replace(user, personRef(current))
    : await deps.users.create(user);
  if (!written) {
    if (!current && user.oidc_subject && (await deps.users.getBySubject(user.oidc_subject))) {
      throw new ProblemError(ErrorCode.NameTaken, 'another user already has this oidc_subject');
    }
    throw concurrentChange(username);
  }
  await recordAudit(deps, caller, {
    action: 'user.saved',
    project: null,
    target: username,
    data: {
      grants: user.grants,
      disabled: user.disabled,
      password_changed: passwordChanged,
      sign_ins_ended: Boolean(current && endsSignIns),
    },
  });
  return user;
}

export async function remove(deps: UserDeps, caller: Identity, username: string): Promise<void> {
  if (!usernameShape.test(username) || !(await deps.users.delete(username))) {
    throw new ProblemError(ErrorCode.NotFound, `user "${username}" not found`);
  }
  await recordAudit(deps, caller, { action: 'user.deleted', project: null, target: username, data: {} });
}

/** Ends every session and CLI sign-in of the person at once: their next request is refused. */
export async function endSignIns(deps: UserDeps, caller: Identity, username: string): Promise<void> {
  const known = usernameShape.test(username);
  if (!known || !(await deps.users.endSignIns(username, deps.clock.now().toISOString()))) {
    throw new ProblemError(ErrorCode.NotFound, `user "${username}" not found`);
  }
  await recordAudit(deps, caller, {
    action: 'user.sign_ins_ended',
    project: null,
    target: username,
    data: { all: true },
  });
}

/** Names to give a person on their first provider sign-in: their claimed name if free, else tagged. */
function namesFor(subject: OidcSubject, claimed: unknown): string[] {
  const tag = sha256(`${subject.issuer}\n${subject.sub}`).slice(0, 8);
  const wanted = typeof claimed === 'string' ? claimed.toLowerCase() : '';
  if (!usernameShape.test(wanted)) return [`user-${tag}`];
  return [wanted, `${wanted.slice(0, 54)}-${tag}`];
}

/**
 * The person an identity provider vouched for, found by (issuer, `sub`) and made at their first
 * sign-in; the username claim only suggests a name. Null when they are disabled.
 */
export async function personFromProvider(
  deps: { users: UserStore; clock: Clock },
  subject: OidcSubject,
  claimedName: unknown,
): Promise<User | null> {
  const known = await deps.users.getBySubject(subject);
  if (known) return known.disabled ? null : known;
  const now = deps.clock.now().toISOString();
  for (const username of namesFor(subject, claimedName)) {
    const user: User = {
      id: newUserId(deps.clock.now()),
      username,
      grants: [],
      password_hash: null,
      disabled: false,
      credentials_epoch: 0,
      oidc_subject: subject,
      created_at: now,
      updated_at: now,
    };
    if (await deps.users.create(user)) return user;
    // The same person's first sign-in in another tab may have just made them.
    const raced = await deps.users.getBySubject(subject);
    if (raced) return raced.disabled ? null : raced;
  }
  throw new ProblemError(
    ErrorCode.NameTaken,
    'Every name this person could be given is taken; an Admin can create them with their oidc_subject.',
  );
}

/**
 * The operator's way in (`npm run user:create`, the local stack's people): creates the person, or
 * gives an existing one this password and these grants, ending their sign-ins.
 */
export async function provision(
  deps: PasswordDeps,
  input: { username: string; grants: Grant[]; password: string; now: Date },
): Promise<User> {
  const { users } = deps;
  const at = input.now.toISOString();
  const current = await users.get(input.username);
  const user: User = {
    id: current?.id ?? newUserId(input.now),
    username: input.username,
    grants: input.grants,
    password_hash: await deps.passwords.hash(input.password),
    disabled: false,
    credentials_epoch: current ? current.credentials_epoch + 1 : 0,
    oidc_subject: current?.oidc_subject ?? null,
    created_at: current?.created_at ?? at,
    updated_at: at,
  };
  const written = current ? await users.replace(user, personRef(current)) : await users.create(user);
  if (!written) throw concurrentChange(input.username);
  return user;
}
