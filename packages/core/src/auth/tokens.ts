/**
 * Machine tokens: bearer credentials for CI and agents, issued by an Admin with explicit grants and
 * an expiry, listed without their secret, revocable. Their subject is always `token:<name>`, so no
 * token can act as a person.
 */
import * as v from 'valibot';
import { addSeconds, type Clock } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { newSortableId } from '../names.ts';
import { pageSchema } from '../paging.ts';
import { Grant } from './access.ts';
import { recordAudit } from './audit.ts';
import { CredentialKind, type Identity, IdentityKind, machineSubject } from './identity.ts';
import type { MachineToken } from './model.ts';
import type { AuditStore, TokenStore } from './ports.ts';
import { newSecret, SecretPrefix } from './secrets.ts';

const tokenIdPrefix = 'tok';

const defaultTokenDays = 90;
const maxTokenDays = 365;

const tokenName = v.pipe(
  v.string(),
  v.regex(
    /^[a-z0-9][a-z0-9._-]{0,62}$/,
    'name must be 1–63 characters of a-z 0-9 . _ - (it becomes the subject token:<name>)',
  ),
);

export const IssueTokenBody = v.strictObject({
  name: tokenName,
  grants: v.pipe(v.array(Grant), v.minLength(1, 'a token needs at least one grant'), v.maxLength(50)),
  /** Lifetime in days; default 90, at most 365. */
  expires_in_days: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(maxTokenDays)),
    defaultTokenDays,
  ),
});
type IssueTokenBody = v.InferOutput<typeof IssueTokenBody>;

export const TokenView = v.object({
  id: v.string(),
  name: v.string(),
  subject: v.string(),
  grants: v.array(Grant),
  created_at: v.string(),
  created_by: v.string(),
  expires_at: v.nullable(v.string()),
  revoked_at: v.nullable(v.string()),
});
export const TokenList = pageSchema(TokenView);

export const IssuedToken = v.object({
  ...TokenView.entries,
  /** The bearer secret: shown once, stored only as its SHA-256. */
  token: v.string(),
});

export const TokenStanding = { Live: 'live', Expired: 'expired', Revoked: 'revoked' } as const;
export type TokenStanding = (typeof TokenStanding)[keyof typeof TokenStanding];

/** Whether a token may act now; a revoked one's 401 says so to whoever holds its secret (its challenge). */
export function tokenStanding(token: MachineToken, now: Date): TokenStanding {
  if (token.revoked_at) return TokenStanding.Revoked;
  if (token.expires_at && Date.parse(token.expires_at) <= now.getTime()) return TokenStanding.Expired;
  return TokenStanding.Live;
}

export interface TokenDeps {
  tokens: TokenStore;
  audit: AuditStore;
  clock: Clock;
}

/**
 * Stores a new token and answers it with its secret. `expiresAt` is null only for the operator's
 * first Admin token (`npm run token:issue`) and test fixtures.
 */
export async function mintToken(
  tokens: TokenStore,
  input: { name: string; grants: Grant[]; createdBy: string; now: Date; expiresAt: string | null },
): Promise<MachineToken & { token: string }> {
  const secret = newSecret(SecretPrefix.MachineToken);
  const token: MachineToken = {
    id: newSortableId(tokenIdPrefix, input.now),
    name: input.name,
    subject: machineSubject(input.name),
    grants: input.grants,
    created_at: input.now.toISOString(),
    created_by: input.createdBy,
    expires_at: input.expiresAt,
    revoked_at: null,
  };
  if (!(await tokens.issue(token, secret, input.now))) {
    throw new ProblemError(
      ErrorCode.NameTaken,
      `a live token is already named "${input.name}"; revoke it first or pick another name`,
      { errors: [{ path: '/name', message: 'taken by a live token' }] },
    );
  }
  return { ...token, token: secret };
}

export async function issue(
  deps: TokenDeps,
  caller: Identity,
  body: IssueTokenBody,
): Promise<MachineToken & { token: string }> {
  const now = deps.clock.now();
  const token = await mintToken(deps.tokens, {
    name: body.name,
    grants: body.grants,
    createdBy: caller.subject,
    now,
    expiresAt: addSeconds(now, body.expires_in_days * 86_400).toISOString(),
  });
  await recordAudit(deps, caller, {
    action: 'token.issued',
    project: null,
    target: token.id,
    data: { name: token.name, grants: token.grants, expires_at: token.expires_at },
  });
  return token;
}

export async function revoke(deps: TokenDeps, caller: Identity, id: string): Promise<MachineToken> {
  const revoked = await deps.tokens.revoke(id, deps.clock.now());
  if (!revoked) throw new ProblemError(ErrorCode.NotFound, `token "${id}" not found`);
  const { token } = revoked;
  if (!revoked.changed) return token;
  await recordAudit(deps, caller, {
    action: 'token.revoked',
    project: null,
    target: token.id,
    data: { name: token.name },
  });
  return token;
}

/** The identity a live machine token carries. */
export function machineIdentity(token: MachineToken): Identity {
  return {
    subject: token.subject,
    kind: IdentityKind.Machine,
    grants: token.grants,
    author: token.subject,
    credential: { kind: CredentialKind.MachineToken, id: token.id },
  };
}
