/**
 * Password hashes: scrypt (memory-hard) at OWASP's current cost, N = 2^17, r = 8, p = 1 (128 MiB and
 * a few hundred milliseconds per guess). A hash of an older cost still verifies, and is replaced
 * by one of the current cost at the owner's next successful sign-in.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

interface Cost {
  N: number;
  r: number;
  p: number;
}

const currentCost: Cost = { N: 2 ** 17, r: 8, p: 1 };
const keyLength = 32;
/** Room for the largest cost a stored hash may name (128 · N · r bytes, and some). */
const maxmem = 256 * 1024 * 1024;
const maxCostN = 2 ** 20;

function derive(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, { ...cost, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, currentCost);
  const { N, r, p } = currentCost;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string): { cost: Cost; salt: Buffer; hash: Buffer } | null {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const sane = Number.isInteger(cost.N) && cost.N > 1 && cost.N <= maxCostN && cost.r === 8 && cost.p === 1;
  if (scheme !== 'scrypt' || !salt || !hash || !sane) return null;
  return { cost, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.cost);
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** True when `stored` was made at a cost other than today's: rehash it at the next sign-in. */
export function needsRehash(stored: string): boolean {
  const cost = parse(stored)?.cost;
  return !cost || cost.N !== currentCost.N || cost.r !== currentCost.r || cost.p !== currentCost.p;
}
