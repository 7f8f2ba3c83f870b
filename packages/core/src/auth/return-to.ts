/**
 * Where a sign-in or sign-out may send a person afterwards: a path on this service, never another
 * site. Browsers strip tabs and newlines from addresses and read `\` as `/`, so `/<TAB>/evil.example`
 * or `/\evil.example` would land off-site; and they resolve dot segments, so `/.//evil.example`,
 * `/%2e//evil.example` or `/console/..//evil.example` become the scheme-relative `//evil.example`.
 * So the rules hold for the path as a browser resolves it, the one we answer: such values, and
 * anything not parsing to our own origin, fall back to the console's home.
 */

/** The console's home: where a person lands when the requested page is unusable. */
export const homePath = '/console/compositions';

const maxLength = 2048;
const probeOrigin = 'http://service.invalid';

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function looksLikeAPath(form: string): boolean {
  return form.startsWith('/') && !form.startsWith('//') && !form.includes('\\') && !hasControlCharacter(form);
}

/** Whether `form`, and `form` with its escapes decoded, each read as a path of this origin. */
function isPlainPath(form: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(form);
  } catch {
    return false;
  }
  return looksLikeAPath(form) && looksLikeAPath(decoded);
}

/** `value` normalised to a same-origin path (with its query), or `fallback`. */
export function safeReturnPath(value: string | null | undefined, fallback: string = homePath): string {
  if (!value || value.length > maxLength || !isPlainPath(value)) return fallback;
  const url = new URL(value, probeOrigin);
  const resolved = url.pathname + url.search + url.hash;
  if (url.origin !== probeOrigin || !isPlainPath(resolved)) return fallback;
  return resolved;
}
