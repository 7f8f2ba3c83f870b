import { randomBytes } from 'node:crypto';
import * as v from 'valibot';

/** Lowercase DNS label: the shape of every name and id that can end up in a hostname or a Kubernetes name. */
export const dnsLabelPattern = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function isDnsLabel(value: string, maxLength: number): boolean {
  return value.length <= maxLength && dnsLabelPattern.test(value);
}

export function dnsLabel(maxLength: number, what: string) {
  return v.pipe(
    v.string(`${what} must be a string`),
    v.minLength(1, `${what} must not be empty`),
    v.maxLength(maxLength, `${what} must be at most ${maxLength} characters`),
    v.regex(
      dnsLabelPattern,
      `${what} must be a lowercase DNS label (a-z, 0-9, '-', not starting or ending with '-')`,
    ),
  );
}

/** Project, baseline and component names. */
export const ResourceName = dnsLabel(63, 'name');
export const CompositionName = dnsLabel(63, 'name');
/** Composition, operation, event and check ids. */
export const Id = dnsLabel(40, 'id');

/**
 * A cluster's name, the one rule wherever a cluster is named: a baseline's `cluster`, the stage's
 * `CLUSTERS`, its stack settings. 1–100 printable characters without spaces, so a kube context's
 * name is one (and an EKS cluster's), and none trips a JSON key or a log line.
 */
export const ClusterName = v.pipe(
  v.string('cluster must be a string'),
  v.regex(/^[\x21-\x7e]{1,100}$/, 'a cluster name is 1–100 printable characters without spaces'),
);

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomChars(count: number): string {
  let chars = '';
  for (const byte of randomBytes(count)) chars += alphabet[byte % alphabet.length];
  return chars;
}

/** A random lowercase id with a readable kind prefix, e.g. `c-k3x9q2m7a1zt`. 36^12 ≈ 4.7e18 values. */
export function newId(prefix: string): string {
  return `${prefix}-${randomChars(12)}`;
}

let sequence = 0;

/**
 * An id that sorts by creation: milliseconds and a per-process sequence, then randomness. Events
 * written together share a timestamp; their ids keep them in the order they were made.
 */
export function newSortableId(prefix: string, at: Date): string {
  sequence = (sequence + 1) % 36 ** 4;
  const time = at.getTime().toString(36).padStart(9, '0');
  const order = sequence.toString(36).padStart(4, '0');
  return `${prefix}-${time}${order}${randomChars(6)}`;
}

export const IdPrefix = {
  Composition: 'c',
  Operation: 'op',
  Event: 'ev',
  Check: 'chk',
  Build: 'b',
} as const;

/** `"a", "b"`: the clusters a message lists as the ones the stage knows. */
export const clusterList = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');
