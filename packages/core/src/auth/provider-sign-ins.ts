/**
 * Grants from the identity provider follow the provider. A sign-in at the provider (oidc mode) is
 * kept as one record holding the provider's tokens; the browser session it made and every CLI
 * sign-in made from that session read their grants from the provider's claims there, re-read with
 * those tokens (the provider's refresh token, else its userinfo) at every CLI refresh and at most
 * every 15 minutes otherwise. The new claims apply at once; a provider that refuses (the person
 * deleted there, the tokens revoked or expired) ends the sign-in and every credential made from
 * it. One re-read at a time per record, under a lease: providers that rotate refresh tokens take a
 * second use of one as theft and revoke them all.
 */
import { addSeconds, type Clock } from '../clock.ts';
import { Dependency, DependencyUnavailableError } from '../errors.ts';
import { newSortableId } from '../names.ts';
import type { Grant } from './access.ts';
import type { ProviderSignIn, ProviderTokens } from './model.ts';
import type { IdentityProviderPort, SignInStore } from './ports.ts';

export const ProviderLifetime = {
  /** Claims older than this are read again at the next session or access-token request. */
  recheckSeconds: 15 * 60,
  /** How long one re-read holds the record. */
  leaseSeconds: 30,
  /** While the provider cannot be reached, claims this recent still hold; older ones answer 503. */
  unreachableGraceSeconds: 60 * 60,
} as const;

/** The provider, and how its claims map to grants. */
export interface ProviderDeps {
  port: IdentityProviderPort;
  grantsOf(claims: Record<string, unknown>): Grant[];
}

export interface ProviderSignInDeps {
  signIns: SignInStore;
  clock: Clock;
  provider: ProviderDeps;
}

/** Keeps a new sign-in at the provider for as long as any credential made from it may live. */
export async function startProviderSignIn(
  deps: Pick<ProviderSignInDeps, 'signIns' | 'clock'>,
  input: {
    user_id: string;
    sub: string;
    claim_grants: Grant[];
    tokens: ProviderTokens;
    lifetimeSeconds: number;
  },
): Promise<ProviderSignIn> {
  const now = deps.clock.now();
  const record: ProviderSignIn = {
    id: newSortableId('idp', now),
    user_id: input.user_id,
    sub: input.sub,
    claim_grants: input.claim_grants,
    tokens: input.tokens,
    checked_at: now.toISOString(),
    leased_until: null,
    ended_at: null,
    created_at: now.toISOString(),
    expires_at: addSeconds(now, input.lifetimeSeconds).toISOString(),
    lock_version: 1,
  };
  await deps.signIns.putProviderSignIn(record);
  return record;
}

const secondsSince = (at: string, now: Date) => (now.getTime() - Date.parse(at)) / 1000;

/** The record if it still works for `userId`: not ended, not expired. */
async function liveRecord(
  deps: ProviderSignInDeps,
  id: string,
  userId: string,
): Promise<ProviderSignIn | null> {
  const record = await deps.signIns.getProviderSignIn(id);
  const now = deps.clock.now();
  if (!record || record.ended_at || record.user_id !== userId) return null;
  return Date.parse(record.expires_at) > now.getTime() ? record : null;
}

/**
 * The grants the provider's claims give the person now; null once the provider refused. `recheck`
 * `now` reads them from the provider whatever their age (a CLI refresh), `due` only once they are
 * older than {@link ProviderLifetime.recheckSeconds}.
 */
export async function providerGrants(
  deps: ProviderSignInDeps,
  credential: { provider_sign_in: string; user_id: string },
  recheck: 'now' | 'due',
): Promise<Grant[] | null> {
  const record = await liveRecord(deps, credential.provider_sign_in, credential.user_id);
  if (!record) return null;
  const now = deps.clock.now();
  const due = recheck === 'now' || secondsSince(record.checked_at, now) >= ProviderLifetime.recheckSeconds;
  if (!due) return record.claim_grants;
  const leased = await lease(deps, record, now);
  if (!leased) {
    // Another request is re-reading them: what it finds applies from its write on.
    const current = await liveRecord(deps, record.id, record.user_id);
    return current?.claim_grants ?? null;
  }
  return reread(deps, leased, now);
}

async function lease(
  deps: ProviderSignInDeps,
  record: ProviderSignIn,
  now: Date,
): Promise<ProviderSignIn | null> {
  if (record.leased_until && Date.parse(record.leased_until) > now.getTime()) return null;
  const leased = {
    ...record,
    leased_until: addSeconds(now, ProviderLifetime.leaseSeconds).toISOString(),
    lock_version: record.lock_version + 1,
  };
  return (await deps.signIns.replaceProviderSignIn(leased, record.lock_version)) ? leased : null;
}

async function reread(deps: ProviderSignInDeps, record: ProviderSignIn, now: Date): Promise<Grant[] | null> {
  const write = (changes: Partial<ProviderSignIn>) =>
    deps.signIns.replaceProviderSignIn(
      { ...record, ...changes, leased_until: null, lock_version: record.lock_version + 1 },
      record.lock_version,
    );
  let answer: Awaited<ReturnType<IdentityProviderPort['recheck']>>;
  try {
    answer = await deps.provider.port.recheck(record.tokens, record.sub);
  } catch (error) {
    await write({});
    if (secondsSince(record.checked_at, now) < ProviderLifetime.unreachableGraceSeconds)
      return record.claim_grants;
    throw new DependencyUnavailableError(
      Dependency.IdentityProvider,
      'the identity provider did not answer',
      error,
    );
  }
  if (answer.kind === 'refused' || answer.claims.sub !== record.sub) {
    await write({ ended_at: now.toISOString() });
    return null;
  }
  const claim_grants = deps.provider.grantsOf(answer.claims);
  const tokens = {
    ...answer.tokens,
    refresh_token: answer.tokens.refresh_token ?? record.tokens.refresh_token,
  };
  await write({ claim_grants, tokens, checked_at: now.toISOString() });
  return claim_grants;
}
