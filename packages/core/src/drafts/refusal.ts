/**
 * What an onboarding draft never stores (spec 2.6): environment values, selected ConfigMap values,
 * credentials and messaging configuration. A draft is resumable work in progress, kept for weeks
 * and readable by its author from any machine: it is no place for anything a preview's workloads
 * would run with. Keys are judged by their words at any depth; strings by shapes secrets have.
 * Documented in docs/registration.md; the CLI applies the same rules before sending a draft.
 */
import type { FieldError } from '../errors.ts';

export const RefusedContent = {
  EnvironmentValues: 'environment_values',
  ConfigMapValues: 'configmap_values',
  Credentials: 'credentials',
  MessagingConfiguration: 'messaging_configuration',
  SecretValue: 'secret_value',
} as const;
export type RefusedContent = (typeof RefusedContent)[keyof typeof RefusedContent];

/** Substrings of a key (lowercased, letters and digits only) that name a credential. */
const credentialFragments = [
  'secret',
  'password',
  'passwd',
  'passphrase',
  'credential',
  'token',
  'apikey',
  'privatekey',
  'accesskey',
  'kubeconfig',
  'authorization',
];
/** Whole words of a key that name a credential. */
const credentialWords = new Set(['auth', 'bearer', 'cookie', 'pwd']);
const environmentWords = new Set([
  'env',
  'envs',
  'environ',
  'environment',
  'environments',
  'envfrom',
  'dotenv',
  'values',
]);
const messagingFragments = ['messaging', 'queue', 'topic', 'subscription'];
const messagingWords = new Set(['sns', 'sqs']);

/** `apiKey`, `API_KEY`, `api-key` → `api`, `key`. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Why a key is refused, or null. Credentials are checked first: `secret_env` is a credential. */
export function refusedKey(key: string): { code: RefusedContent; message: string } | null {
  const joined = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  const words = keyWords(key);
  const hasWord = (set: Set<string>) => words.some((w) => set.has(w));
  if (credentialFragments.some((f) => joined.includes(f)) || hasWord(credentialWords)) {
    return {
      code: RefusedContent.Credentials,
      message: `"${key}" names a credential; drafts never store one`,
    };
  }
  if (joined.includes('configmap')) {
    return {
      code: RefusedContent.ConfigMapValues,
      message: `"${key}" carries ConfigMap values; drafts never store them`,
    };
  }
  if (hasWord(environmentWords)) {
    return {
      code: RefusedContent.EnvironmentValues,
      message: `"${key}" carries environment values; drafts never store them`,
    };
  }
  if (messagingFragments.some((f) => joined.includes(f)) || hasWord(messagingWords)) {
    return {
      code: RefusedContent.MessagingConfiguration,
      message: `"${key}" is messaging configuration; drafts never store it (the catalog does, once approved)`,
    };
  }
  return null;
}

/**
 * Shapes of secrets and environment assignments, wherever they appear in a string. Every pattern
 * runs in time linear in the text (a draft is 64 KiB of untrusted input): a token's start may not
 * follow a character of the token itself (lookbehind), so a long run of token characters is
 * scanned from its start only, and no quantifier can cross a line (`[ \t]`, not `\s`) where a
 * line start anchors the pattern.
 */
const secretShapes: { pattern: RegExp; what: string; code: RefusedContent }[] = [
  { pattern: /-----BEGIN [A-Z0-9 ]+-----/, what: 'a PEM block (key or certificate)', code: 'secret_value' },
  { pattern: /\b(AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/, what: 'an AWS access key id', code: 'secret_value' },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}/, what: 'a GitHub token', code: 'secret_value' },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/, what: 'a GitHub token', code: 'secret_value' },
  { pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/, what: 'a GitLab token', code: 'secret_value' },
  { pattern: /(?<![A-Za-z0-9-])xox[abposr]-[A-Za-z0-9-]{10,}/, what: 'a Slack token', code: 'secret_value' },
  { pattern: /\b[rs]k_(live|test)_[A-Za-z0-9]{16,}/, what: 'a payment API key', code: 'secret_value' },
  { pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/, what: 'a Google API key', code: 'secret_value' },
  {
    pattern: /(?<![A-Za-z0-9_-])svc_[A-Za-z0-9_-]{40,}/,
    what: 'a token of this service',
    code: 'secret_value',
  },
  {
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
    what: 'a JSON Web Token',
    code: 'secret_value',
  },
  {
    pattern: /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i,
    what: 'a URL with a password',
    code: 'secret_value',
  },
  {
    pattern: /^[ \t]*(?:export[ \t]+)?[A-Z_][A-Z0-9_]*=/m,
    what: 'an environment assignment (NAME=value)',
    code: 'environment_values',
  },
];

export function secretShape(text: string): { code: RefusedContent; what: string } | null {
  const found = secretShapes.find((shape) => shape.pattern.test(text));
  return found ? { code: found.code, what: found.what } : null;
}

const pointer = (parent: string, key: string | number) =>
  `${parent}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/**
 * Every refused key and string under `value`, by JSON pointer (starting at `path`). A refused key
 * is reported once; what is under it is not walked further.
 */
export function refusedContent(value: unknown, path: string): FieldError[] {
  const found: FieldError[] = [];
  const walk = (node: unknown, at: string) => {
    if (typeof node === 'string') {
      const shape = secretShape(node);
      if (shape) found.push({ path: at, code: shape.code, message: `looks like ${shape.what}` });
      return;
    }
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, pointer(at, i));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, item] of Object.entries(node)) {
      const here = pointer(at, key);
      const refused = refusedKey(key);
      if (refused) {
        found.push({ path: here, code: refused.code, message: refused.message });
        continue;
      }
      const shape = secretShape(key);
      if (shape) {
        found.push({ path: here, code: shape.code, message: `the key looks like ${shape.what}` });
        continue;
      }
      walk(item, here);
    }
  };
  walk(value, path);
  return found;
}
