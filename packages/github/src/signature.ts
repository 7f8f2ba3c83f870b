import { verify } from '@octokit/webhooks-methods';
import type { Forge } from '@svc/core';

/**
 * `X-Hub-Signature-256` checked in constant time (`@octokit/webhooks-methods`) against the exact
 * raw body, with the current secret and, during a rotation, the previous one.
 */
export function webhookVerifier(secrets: {
  current: string;
  previous?: string | undefined;
}): Forge.SignatureCheck {
  const matches = async (secret: string, body: string, signature: string) => {
    try {
      return await verify(secret, body, signature);
    } catch {
      return false;
    }
  };
  return async (body, signature) => {
    if (!/^sha256=[0-9a-f]{64}$/.test(signature)) return false;
    if (await matches(secrets.current, body, signature)) return true;
    return secrets.previous !== undefined && (await matches(secrets.previous, body, signature));
  };
}

/** The check of a function's webhook secrets; null without them (every delivery is refused as unsigned). */
export function webhookCheck(
  secrets: Parameters<typeof webhookVerifier>[0] | null,
): Forge.SignatureCheck | null {
  return secrets ? webhookVerifier(secrets) : null;
}
