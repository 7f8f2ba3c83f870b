// GitHub App authentication: the app proves itself with an RS256 JWT signed by its private key
// (iss = app id, lifetime ≤ 10 minutes), then trades it for hour-long installation tokens.
// Error messages are GitHub's, because clients match on them (auth-app retries on clock skew).

import { createPublicKey, type KeyObject, randomBytes, verify } from 'node:crypto';
import { GitHubError } from './errors.ts';
import { APP_PERMISSIONS } from './render.ts';
import type { InstallationRecord, TokenRecord } from './state.ts';
import type { ForgeStore } from './store.ts';

export type Credentials =
  | { kind: 'none' }
  | { kind: 'app' }
  | { kind: 'installation'; token: TokenRecord; installation: InstallationRecord };

const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
const MAX_JWT_LIFETIME_S = 10 * 60;
/** GitHub tolerates a little clock drift on `iat`; auth-app backdates it by 30 s anyway. */
const IAT_LEEWAY_S = 60;

export const JWT_UNDECODABLE = 'A JSON web token could not be decoded';
const EXP_IN_PAST =
  "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
const EXP_TOO_FAR = "'Expiration time' claim ('exp') is too far in the future";
const IAT_INVALID =
  "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
const BAD_CREDENTIALS = 'Bad credentials';

const unauthorized = (message: string) => new GitHubError(401, message);

function decodePart(part: string | undefined): Record<string, unknown> {
  if (!part) throw unauthorized(JWT_UNDECODABLE);
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) throw unauthorized(JWT_UNDECODABLE);
    return value as Record<string, unknown>;
  } catch {
    throw unauthorized(JWT_UNDECODABLE);
  }
}

export class AppAuth {
  private readonly store: ForgeStore;
  private publicKey: KeyObject;

  constructor(store: ForgeStore) {
    this.store = store;
    this.publicKey = createPublicKey(store.state.app.privateKey);
  }

  /** Throws GitHub's 401 unless `jwt` is a current app JWT signed with the app's key. */
  verifyJwt(jwt: string, nowSeconds = Math.floor(Date.now() / 1000)): void {
    const [headerPart, payloadPart, signaturePart, extra] = jwt.split('.');
    if (extra !== undefined || !signaturePart) throw unauthorized(JWT_UNDECODABLE);
    const header = decodePart(headerPart);
    const claims = decodePart(payloadPart);
    if (header.alg !== 'RS256') throw unauthorized(JWT_UNDECODABLE);
    const signed = verify(
      'RSA-SHA256',
      Buffer.from(`${headerPart}.${payloadPart}`),
      this.publicKey,
      Buffer.from(signaturePart, 'base64url'),
    );
    if (!signed || String(claims.iss) !== String(this.store.state.app.id))
      throw unauthorized(JWT_UNDECODABLE);
    const { exp, iat } = claims;
    if (typeof iat !== 'number' || !Number.isInteger(iat) || iat > nowSeconds + IAT_LEEWAY_S) {
      throw unauthorized(IAT_INVALID);
    }
    if (typeof exp !== 'number' || !Number.isInteger(exp) || exp <= nowSeconds)
      throw unauthorized(EXP_IN_PAST);
    if (exp - iat > MAX_JWT_LIFETIME_S || exp > nowSeconds + MAX_JWT_LIFETIME_S)
      throw unauthorized(EXP_TOO_FAR);
  }

  /**
   * Reads `Authorization: Bearer|token <credential>`. Three dot-separated parts make a JWT, anything
   * else is looked up as an installation token. Bad credentials throw; no header is 'none'.
   */
  authenticate(authorization: string | undefined): Credentials {
    if (!authorization) return { kind: 'none' };
    const match = /^(?:bearer|token)\s+(\S+)$/i.exec(authorization.trim());
    if (!match?.[1]) throw unauthorized(BAD_CREDENTIALS);
    const credential = match[1];
    if (credential.split('.').length === 3) {
      this.verifyJwt(credential);
      return { kind: 'app' };
    }
    const token = this.store.state.tokens.find((t) => t.token === credential);
    const installation = token && this.store.installation(token.installationId);
    if (!token || !installation || Date.parse(token.expiresAt) <= Date.now()) {
      throw unauthorized(BAD_CREDENTIALS);
    }
    return { kind: 'installation', token, installation };
  }

  /** `POST /app/installations/{id}/access_tokens`, with GitHub's narrowing by repositories and permissions. */
  issueToken(
    installation: InstallationRecord,
    request: { repositories?: unknown; repository_ids?: unknown; permissions?: unknown },
  ): { record: TokenRecord; repositoryIds: number[] | null } {
    const repositoryIds = this.requestedRepositories(installation, request);
    const permissions = this.requestedPermissions(request.permissions);
    const record: TokenRecord = {
      token: `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`,
      installationId: installation.id,
      expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS).toISOString().replace(/\.\d+Z$/, 'Z'),
      permissions,
      repositoryIds,
    };
    const now = Date.now();
    this.store.state.tokens = this.store.state.tokens.filter((t) => Date.parse(t.expiresAt) > now);
    this.store.state.tokens.push(record);
    this.store.changed();
    return { record, repositoryIds };
  }

  revokeInstallationTokens(installationId: number): void {
    this.store.state.tokens = this.store.state.tokens.filter((t) => t.installationId !== installationId);
  }

  private requestedRepositories(
    installation: InstallationRecord,
    request: { repositories?: unknown; repository_ids?: unknown },
  ): number[] | null {
    const { repositories: names, repository_ids: ids } = request;
    if (names === undefined && ids === undefined) return null;
    const notAccessible = new GitHubError(
      422,
      'There is at least one repository that does not exist or is not accessible to the parent installation.',
    );
    const selected = new Set<number>();
    if (names !== undefined) {
      if (!Array.isArray(names))
        throw new GitHubError(422, 'Invalid request.\n\n"repositories" must be an array.');
      for (const name of names) {
        const owner = this.store.account(installation.account)?.login ?? installation.account;
        const repository = typeof name === 'string' ? this.store.repository(owner, name) : undefined;
        if (!repository || !installation.repositoryIds.includes(repository.id)) throw notAccessible;
        selected.add(repository.id);
      }
    }
    if (ids !== undefined) {
      if (!Array.isArray(ids))
        throw new GitHubError(422, 'Invalid request.\n\n"repository_ids" must be an array.');
      for (const id of ids) {
        if (typeof id !== 'number' || !installation.repositoryIds.includes(id)) throw notAccessible;
        selected.add(id);
      }
    }
    return [...selected];
  }

  private requestedPermissions(requested: unknown): Record<string, string> {
    if (requested === undefined) return { ...APP_PERMISSIONS };
    if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
      throw new GitHubError(422, 'Invalid request.\n\n"permissions" must be an object.');
    }
    const granted: Record<string, string> = {};
    for (const [name, level] of Object.entries(requested)) {
      const installed = APP_PERMISSIONS[name];
      if (
        !installed ||
        (level === 'write' && installed !== 'write') ||
        (level !== 'read' && level !== 'write')
      ) {
        throw new GitHubError(422, 'The permissions requested are not granted to this installation.');
      }
      granted[name] = level;
    }
    return granted;
  }
}
