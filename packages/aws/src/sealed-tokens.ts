/**
 * Secrets the service must use again, not just compare (an identity provider's refresh token), are
 * stored sealed: AES-256-GCM under a key derived (HKDF) from the installation's cursor key, so a
 * read of the table or a backup yields nothing usable.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretSeal {
  seal(plain: string): string;
  /** The plain text; throws when `sealed` was not sealed with this key. */
  open(sealed: string): string;
}

const version = 'v1';

export function secretSeal(installationKey: string): SecretSeal {
  const key = Buffer.from(hkdfSync('sha256', installationKey, '', 'svc sealed secrets', 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [version, iv, cipher.getAuthTag(), body]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [mark, iv, tag, body] = sealed.split('.');
      if (mark !== version || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}
