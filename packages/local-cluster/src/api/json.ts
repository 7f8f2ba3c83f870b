// Small helpers for the plain-JSON objects the API server stores and serves.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep copy of plain JSON data; several times faster than structuredClone for API objects. */
export function clone<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = clone(v);
  }
  return out as T;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const aKeys = Object.keys(a).filter((k) => a[k] !== undefined);
    const bKeys = Object.keys(b).filter((k) => b[k] !== undefined);
    if (aKeys.length !== bKeys.length) return false;
    return aKeys.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Stored objects are shared with watchers and controllers; freezing turns an accidental mutation into an error. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** JSON with object keys sorted, so equal values hash equally. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** 32-bit FNV-1a, as Kubernetes uses for pod-template hashes. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

// Kubernetes' "safe" alphabet: no vowels (no accidental words) and no look-alike characters.
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function safeEncode(n: number): string {
  let out = '';
  let rest = n;
  do {
    out += SAFE_ALPHABET[rest % SAFE_ALPHABET.length];
    rest = Math.floor(rest / SAFE_ALPHABET.length);
  } while (rest > 0);
  return out;
}

export function randomSuffix(length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += SAFE_ALPHABET[Math.floor(Math.random() * SAFE_ALPHABET.length)];
  return out;
}

let lastSecond = -1;
let lastTime = '';

/** metav1.Time: RFC 3339 with whole seconds. */
export function metaTime(ms: number = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTime = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastTime;
}
