/**
 * People known to the service: their grants, and in `password` mode their password hash (scrypt, a
 * memory-hard KDF). In `oidc` mode a user record is optional: its grants add to those the
 * provider's claims map to.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import type { Clock } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import type { Page, PageRequest } from '../paging.ts';
import { pageSchema } from '../paging.ts';
import { parseOrThrow } from '../validation.ts';
import { Grant } from './access.ts';
import { type AuditStore, recordAudit } from './audit.ts';
import type { Identity } from './identity.ts';

export interface User {
  username: string;
  grants: Grant[];
  /** `scrypt$N$r$p$salt$hash`; null for a user who signs in only through the identity provider. */
  password_hash: string | null;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface UserStore {
  get(username: string): Promise<User | null>;
  put(user: User): Promise<void>;
  /** False when there was no such user. */
  delete(username: string): Promise<boolean>;
  /** By name. */
  list(page: PageRequest): Promise<Page<User>>;
}

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
});

export const UserView = v.object({
  username: v.string(),
  subject: v.string(),
  grants: v.array(Grant),
  has_password: v.boolean(),
  disabled: v.boolean(),
  created_at: v.string(),
  updated_at: v.string(),
});
export type UserView = v.InferOutput<typeof UserView>;
export const UserList = pageSchema(UserView);

export function userView(user: User): UserView {
  return {
    username: user.username,
    subject: `user:${user.username}`,
    grants: user.grants,
    has_password: user.password_hash !== null,
    disabled: user.disabled,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}

/** scrypt with N = 2^15, r = 8, p = 1: 32 MiB and tens of milliseconds per guess. */
const cost = { N: 2 ** 15, r: 8, p: 1 };
const keyLength = 32;
const maxmem = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, params: typeof cost): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, { ...params, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of nothing anyone knows: checked when the user does not exist, so an unknown name takes as
 * long to refuse as a wrong password.
 */
let decoy: Promise<string> | undefined;

/** The user if `password` is theirs and they may sign in; null otherwise, in about the same time. */
export async function checkPassword(
  users: UserStore,
  username: string,
  password: string,
): Promise<User | null> {
  const user = await users.get(username);
  if (!user?.password_hash || user.disabled) {
    decoy ??= hashPassword(randomBytes(16).toString('hex'));
    await verifyPassword(password, await decoy);
    return null;
  }
  return (await verifyPassword(password, user.password_hash)) ? user : null;
}

export interface UserDeps {
  users: UserStore;
  audit: AuditStore;
  clock: Clock;
}

export async function save(
  deps: UserDeps,
  caller: Identity,
  username: string,
  input: unknown,
): Promise<User> {
  parseOrThrow(Username, username);
  const body = parseOrThrow(SaveUserBody, input);
  const now = deps.clock.now().toISOString();
  const current = await deps.users.get(username);
  const user: User = {
    username,
    grants: body.grants,
    password_hash:
      body.password === undefined ? (current?.password_hash ?? null) : await hashPassword(body.password),
    disabled: body.disabled,
    created_at: current?.created_at ?? now,
    updated_at: now,
  };
  await deps.users.put(user);
  await recordAudit(deps, caller, {
    action: 'user.saved',
    project: null,
    target: username,
    data: { grants: user.grants, disabled: user.disabled, password_changed: body.password !== undefined },
  });
  return user;
}

export async function remove(deps: UserDeps, caller: Identity, username: string): Promise<void> {
  if (!(await deps.users.delete(username))) {
    throw new ProblemError(ErrorCode.NotFound, `user "${username}" not found`);
  }
  await recordAudit(deps, caller, { action: 'user.deleted', project: null, target: username, data: {} });
}
