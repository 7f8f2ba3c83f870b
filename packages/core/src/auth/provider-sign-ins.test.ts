import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors.ts';
import type { Grant } from './access.ts';
import type { ProviderSignIn } from './model.ts';
import type { ProviderAnswer, SignInStore } from './ports.ts';
import { ProviderLifetime, providerGrants, startProviderSignIn } from './provider-sign-ins.ts';

const admin: Grant[] = [{ role: 'admin', project: '*', repository: null }];
const tokens = { refresh_token: 'r1', access_token: 'a1', access_expires_at: null };

/** The store's provider sign-ins in memory, with the conditional replace the table does. */
function harness(answers: (() => Promise<ProviderAnswer>)[]) {
  const now = { at: new Date('2030-01-01T00:00:00Z') };
  const records = new Map<string, ProviderSignIn>();
  const asked: unknown[] = [];
  const signIns = {
    putProviderSignIn: async (r: ProviderSignIn) => void records.set(r.id, structuredClone(r)),
    getProviderSignIn: async (id: string) => structuredClone(records.get(id) ?? null),
    async replaceProviderSignIn(r: ProviderSignIn, expected: number) {
      if (records.get(r.id)?.lock_version !== expected) return false;
      records.set(r.id, structuredClone(r));
      return true;
    },
  } as unknown as SignInStore;
  const deps = {
    signIns,
    clock: { now: () => now.at },
    provider: {
      port: {
        recheck: (t: ProviderSignIn['tokens'], sub: string) => {
          asked.push({ t, sub });
          const next = answers.shift();
          if (!next) throw new Error('asked once too often');
          return next();
        },
      },
      grantsOf: (claims: Record<string, unknown>) =>
        (claims.groups as string[]).includes('admins') ? admin : [],
    },
  };
  const advance = (seconds: number) => {
    now.at = new Date(now.at.getTime() + seconds * 1000);
  };
  return { deps, records, asked, advance };
}

const claims =
  (groups: string[], refresh = 'r2'): (() => Promise<ProviderAnswer>) =>
  async () => ({
    kind: 'claims',
    claims: { sub: 'alice-sub', groups },
    tokens: { refresh_token: refresh, access_token: 'a2', access_expires_at: null },
  });

async function started(h: ReturnType<typeof harness>) {
  const record = await startProviderSignIn(h.deps, {
    user_id: 'usr-1',
    sub: 'alice-sub',
    claim_grants: admin,
    tokens,
    lifetimeSeconds: 3600 * 24,
  });
  return { provider_sign_in: record.id, user_id: 'usr-1' };
}

describe('grants from the identity provider', () => {
  it('are read again at a refresh, and otherwise only once they are 15 minutes old', async () => {
    const h = harness([claims(['admins']), claims([])]);
    const credential = await started(h);
    expect(await providerGrants(h.deps, credential, 'due')).toEqual(admin);
    expect(h.asked).toEqual([]);
    expect(await providerGrants(h.deps, credential, 'now')).toEqual(admin);
    expect(h.asked).toEqual([{ t: tokens, sub: 'alice-sub' }]);
    h.advance(ProviderLifetime.recheckSeconds - 1);
    expect(await providerGrants(h.deps, credential, 'due')).toEqual(admin);
    h.advance(1);
    // Removed from the group at the provider: the next read after 15 minutes finds it.
    expect(await providerGrants(h.deps, credential, 'due')).toEqual([]);
    // The rotated refresh token is the one asked with next.
    expect((h.asked[1] as { t: { refresh_token: string } }).t.refresh_token).toBe('r2');
  });

  it('end when the provider refuses, for every credential made from the sign-in', async () => {
    const h = harness([async () => ({ kind: 'refused', reason: 'invalid_grant' })]);
    const credential = await started(h);
    expect(await providerGrants(h.deps, credential, 'now')).toBeNull();
    expect(await providerGrants(h.deps, credential, 'due')).toBeNull();
    expect([...h.records.values()][0]?.ended_at).not.toBeNull();
  });

  it('end when the provider answers for another subject, or the credential is another person’s', async () => {
    const h = harness([
      async () => ({ kind: 'claims', claims: { sub: 'mallory', groups: ['admins'] }, tokens }),
    ]);
    const credential = await started(h);
    expect(await providerGrants(h.deps, { ...credential, user_id: 'usr-2' }, 'now')).toBeNull();
    expect(await providerGrants(h.deps, credential, 'now')).toBeNull();
  });

  it('hold a while when the provider cannot be reached, then answer that it is unavailable', async () => {
    const down = async (): Promise<ProviderAnswer> => {
      throw new TypeError('fetch failed');
    };
    const h = harness([down, down]);
    const credential = await started(h);
    expect(await providerGrants(h.deps, credential, 'now')).toEqual(admin);
    h.advance(ProviderLifetime.unreachableGraceSeconds);
    await expect(providerGrants(h.deps, credential, 'now')).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
  });

  it('are read by one request at a time: another, meanwhile, keeps what was last read', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const h = harness([
      async () => {
        await held;
        return claims([])();
      },
    ]);
    const credential = await started(h);
    const first = providerGrants(h.deps, credential, 'now');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await providerGrants(h.deps, credential, 'now')).toEqual(admin);
    release();
    expect(await first).toEqual([]);
    expect(h.asked).toHaveLength(1);
  });
});
