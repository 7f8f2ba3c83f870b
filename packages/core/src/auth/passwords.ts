/**
 * Password hashes: scrypt (memory-hard), at OWASP's current cost unless the process is told
 * otherwise: N = 2^17, r = 8, p = 1 (128 MiB and a few hundred milliseconds per guess). A hash of
 * another cost still verifies, and is replaced by one of the current cost at the owner's next
 * successful sign-in.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

const owaspScryptCost: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };

/** How a process hashes and checks passwords: one cost for every hash it writes. */
export interface PasswordHashing {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** True when `stored` was made at another cost: rehash it at the next sign-in. */
  needsRehash(stored: string): boolean;
  /**
   * Fails after as long as a check against a real hash takes: a name nobody has is refused in
   * the time a wrong password is.
   */
  verifyNobody(password: string): Promise<false>;
}

const keyLength = 32;
/** Room for the largest cost a stored hash may name (128 · N · r bytes, and some). */
const maxmem = 256 * 1024 * 1024;
const maxCostN = 2 ** 20;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, { ...cost, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

function parse(stored: string): { cost: ScryptCost; salt: Buffer; hash: Buffer } | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const sane = Number.isInteger(cost.N) && cost.N > 1 && cost.N <= maxCostN && cost.r === 8 && cost.p === 1;
  if (scheme !== 'scrypt' || !salt || !hash || !sane) return null;
  return { cost, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

/**
 * Hashes at `cost`. Only the local stack's tests ask for less than OWASP's: they sign in hundreds
 * of times, and the cost is not what they test.
 */
export function passwordHashing(cost: ScryptCost = owaspScryptCost): PasswordHashing {
  let decoy: Promise<string> | undefined;
  const hashing: PasswordHashing = {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, cost);
      return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join(
        '$',
      );
    },
    async verify(password, stored) {
      const parsed = parse(stored);
      if (!parsed) return false;
      const key = await derive(password, parsed.salt, parsed.cost);
      return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
    },
    needsRehash(stored) {
      const found = parse(stored)?.cost;
      return !found || found.N !== cost.N || found.r !== cost.r || found.p !== cost.p;
    },
    async verifyNobody(password) {
      decoy ??= hashing.hash(randomBytes(16).toString('hex'));
      await hashing.verify(password, await decoy);
      return false;
    },
  };
  return hashing;
}
