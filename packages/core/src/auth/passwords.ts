/**
 * Password hashes: scrypt (memory-hard), at OWASP's current cost unless the process is told
 * otherwise: N = 2^17, r = 8, p = 1 (128 MiB and a few hundred milliseconds per guess). A hash of
 * another cost still verifies, and is replaced by one of the current cost at the owner's next
 * successful sign-in. Until then a check of a cheaper hash is topped up with decoy work to the
 * current cost, so its owner's name does not answer faster than others (or than nobody's).
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
  /** One derivation at `stored`'s own cost: whether `password` is the one it was made from. */
  verify(password: string, stored: string): Promise<boolean>;
  /**
   * `verify`, then decoy derivations making up what `stored`'s cost lacks of the current one: a
   * sign-in check costs the same whatever the age of the hash.
   */
  check(password: string, stored: string): Promise<boolean>;
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

const isPowerOfTwo = (n: number) => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

function encode(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** The powers of two (scrypt's N) summing to `deficit`, largest first. */
function decoyCosts(deficit: number): number[] {
  const costs: number[] = [];
  for (let n = 2 ** 30; n >= 2; n /= 2) if (deficit & n) costs.push(n);
  return costs;
}

function parse(stored: string): { cost: ScryptCost; salt: Buffer; hash: Buffer } | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const sane = isPowerOfTwo(cost.N) && cost.N > 1 && cost.N <= maxCostN && cost.r === 8 && cost.p === 1;
  if (scheme !== 'scrypt' || !salt || !hash || !sane) return null;
  return { cost, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

/**
 * Hashes at `cost`. Only the local stack's tests ask for less than OWASP's: they sign in hundreds
 * of times, and the cost is not what they test.
 */
export function passwordHashing(cost: ScryptCost = owaspScryptCost): PasswordHashing {
  const decoys = new Map<number, Promise<string>>();
  /** A hash of a random password at N = `n`, made once per cost. */
  const decoyAt = (n: number) => {
    let decoy = decoys.get(n);
    if (!decoy) {
      const at = { ...cost, N: n };
      const salt = randomBytes(16);
      decoy = derive(randomBytes(16).toString('hex'), salt, at).then((key) => encode(at, salt, key));
      decoys.set(n, decoy);
    }
    return decoy;
  };
  const hashing: PasswordHashing = {
    async hash(password) {
      const salt = randomBytes(16);
      return encode(cost, salt, await derive(password, salt, cost));
    },
    async verify(password, stored) {
      const parsed = parse(stored);
      if (!parsed) return false;
      const key = await derive(password, parsed.salt, parsed.cost);
      return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
    },
    async check(password, stored) {
      const matches = await hashing.verify(password, stored);
      const done = parse(stored)?.cost.N ?? 0;
      for (const n of decoyCosts(Math.max(0, cost.N - done)))
        await hashing.verify(password, await decoyAt(n));
      return matches;
    },
    needsRehash(stored) {
      const found = parse(stored)?.cost;
      return !found || found.N !== cost.N || found.r !== cost.r || found.p !== cost.p;
    },
    async verifyNobody(password) {
      await hashing.check(password, await decoyAt(cost.N));
      return false;
    },
  };
  return hashing;
}
