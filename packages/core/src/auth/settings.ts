/**
 * An installation's auth settings, parsed once at the edge (the stage's settings → `AUTH_MODE` and
 * `AUTH_SETTINGS`; secrets come separately). One mode per installation.
 */
import * as v from 'valibot';
import { anyProject, Grant, GrantRole } from './access.ts';
import { AuthMode } from './identity.ts';

const developerEverywhere: Grant[] = [{ role: GrantRole.Developer, project: anyProject, repository: null }];

const Limits = v.strictObject({
  /** Mutating `/v1` requests (POST, PUT, PATCH, DELETE) per identity per minute. */
  mutations_per_minute: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 120),
  /**
   * Failed password sign-ins per client address and user name per 5 minutes (three times as many
   * per hour). Successes are not counted.
   */
  sign_ins_per_5_minutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 10),
  /** Failed password sign-ins per client address, whatever the names, per 5 minutes. */
  failed_sign_ins_per_address_per_5_minutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 100),
  /** Identity-provider sign-ins started per client address per 5 minutes (each keeps a pending item). */
  sign_in_starts_per_address_per_5_minutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 60),
  /** Compositions not yet destroyed, per project. */
  live_compositions_per_project: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 50),
});
type Limits = v.InferOutput<typeof Limits>;

const grantList = v.pipe(v.array(Grant), v.maxLength(50));

const OidcSettings = v.strictObject({
  /** The provider's issuer URL (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  issuer: v.pipe(v.string(), v.url()),
  client_id: v.pipe(v.string(), v.minLength(1)),
  /** The claim that names the person; becomes `user:<value>`. */
  username_claim: v.optional(v.string(), 'preferred_username'),
  /** The claim listing the person's groups or roles… */
  grants_claim: v.optional(v.string(), 'groups'),
  /** …and the grants each value of it gives. */
  claim_grants: v.optional(v.record(v.string(), grantList), {}),
  /** Grants every signed-in person gets. */
  default_grants: v.optional(grantList, []),
  scopes: v.optional(v.array(v.string()), ['openid', 'profile', 'groups']),
});
type OidcSettings = v.InferOutput<typeof OidcSettings>;

/** `AUTH_SETTINGS`: what the mode needs besides its secrets. */
const AuthSettingsBody = v.strictObject({
  /** shared-token and anonymous: what the one common identity may do (default: developer on every project). */
  grants: v.optional(grantList, developerEverywhere),
  oidc: v.optional(OidcSettings),
  limits: v.optional(Limits, {}),
  /**
   * The service's public origin (`https://svc.example.com`): browsers' `Origin` must be it on every
   * cookie-authenticated or console change. Required in every mode but dev, which takes the
   * request's own origin and answers only loopback host names.
   */
  public_origin: v.optional(v.pipe(v.string(), v.url())),
});

export type AuthSettings =
  | { mode: typeof AuthMode.Dev; limits: Limits }
  | { mode: typeof AuthMode.Token; limits: Limits; publicOrigin: string }
  | {
      mode: typeof AuthMode.SharedToken;
      sharedToken: string;
      grants: Grant[];
      limits: Limits;
      publicOrigin: string;
    }
  | { mode: typeof AuthMode.Anonymous; grants: Grant[]; limits: Limits; publicOrigin: string }
  | { mode: typeof AuthMode.Password; limits: Limits; publicOrigin: string }
  | {
      mode: typeof AuthMode.Oidc;
      oidc: OidcSettings & { client_secret: string };
      limits: Limits;
      publicOrigin: string;
    };

export class AuthSettingsError extends Error {
  override name = 'AuthSettingsError';
}

/**
 * The settings of `mode` from the environment's values. `dev` is refused unless allowed (never on
 * Lambda); `anonymous` must be named explicitly like every other mode.
 */
export function parseAuthSettings(
  env: {
    AUTH_MODE?: string | undefined;
    AUTH_SETTINGS?: string | undefined;
    AUTH_SHARED_TOKEN?: string | undefined;
    OIDC_CLIENT_SECRET?: string | undefined;
  },
  options: { allowDev: boolean },
): AuthSettings {
  const modes = Object.values(AuthMode).filter((m) => options.allowDev || m !== AuthMode.Dev);
  const mode = env.AUTH_MODE as AuthMode | undefined;
  if (mode === AuthMode.Dev && !options.allowDev) {
    throw new AuthSettingsError('AUTH_MODE=dev is for local development only and cannot be used here.');
  }
  if (!mode || !modes.includes(mode)) {
    throw new AuthSettingsError(
      `AUTH_MODE must be set explicitly to one of ${modes.map((m) => `"${m}"`).join(', ')} (got ${mode === undefined ? 'nothing' : JSON.stringify(mode)}).`,
    );
  }
  let raw: unknown = {};
  if (env.AUTH_SETTINGS?.trim()) {
    try {
      raw = JSON.parse(env.AUTH_SETTINGS);
    } catch {
      throw new AuthSettingsError('AUTH_SETTINGS must be JSON.');
    }
  }
  const parsed = v.safeParse(AuthSettingsBody, raw);
  if (!parsed.success) {
    const where = parsed.issues.map((i) => `${v.getDotPath(i) ?? '/'}: ${i.message}`).join('; ');
    throw new AuthSettingsError(`AUTH_SETTINGS is invalid: ${where}`);
  }
  const body = parsed.output;
  if (mode === AuthMode.Dev) return { mode, limits: body.limits };
  if (!body.public_origin) {
    throw new AuthSettingsError(
      `AUTH_MODE=${mode} needs AUTH_SETTINGS.public_origin: the origin people and browsers reach the service at (https://svc.example.com), which every browser change's Origin must be (stage setting publicOrigin).`,
    );
  }
  const publicOrigin = new URL(body.public_origin).origin;
  switch (mode) {
    case AuthMode.Token:
      return { mode, limits: body.limits, publicOrigin };
    case AuthMode.SharedToken: {
      const sharedToken = env.AUTH_SHARED_TOKEN?.trim() ?? '';
      if (sharedToken.length < 32) {
        throw new AuthSettingsError(
          'AUTH_MODE=shared-token needs AUTH_SHARED_TOKEN, at least 32 characters.',
        );
      }
      return { mode, sharedToken, grants: body.grants, limits: body.limits, publicOrigin };
    }
    case AuthMode.Anonymous:
      return { mode, grants: body.grants, limits: body.limits, publicOrigin };
    case AuthMode.Password:
      return { mode, limits: body.limits, publicOrigin };
    case AuthMode.Oidc: {
      if (!body.oidc)
        throw new AuthSettingsError('AUTH_MODE=oidc needs AUTH_SETTINGS.oidc (issuer, client_id…).');
      const secret = env.OIDC_CLIENT_SECRET?.trim();
      if (!secret) throw new AuthSettingsError('AUTH_MODE=oidc needs OIDC_CLIENT_SECRET.');
      return { mode, oidc: { ...body.oidc, client_secret: secret }, limits: body.limits, publicOrigin };
    }
  }
}
