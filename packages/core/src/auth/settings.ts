/**
 * An installation's auth settings, parsed once at the edge with the service's other settings (the
 * stage's settings → `AUTH_MODE` and `AUTH_SETTINGS`; secrets come separately). One mode per installation.
 */
import * as v from 'valibot';
import { PublicOrigin, variablePath } from '../settings.ts';
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
  /**
   * Failed password sign-ins per user name from every address together, per 5 minutes (three times
   * as many per hour, twelve times per day), from browsers that have not signed that person in.
   */
  failed_sign_ins_per_name_per_5_minutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 30),
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
  public_origin: PublicOrigin,
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

const modeList = (modes: readonly AuthMode[]) => modes.map((m) => `"${m}"`).join(', ');

/**
 * `AUTH_MODE`, `AUTH_SETTINGS` and the mode's secret (`AUTH_SHARED_TOKEN`, `OIDC_CLIENT_SECRET`):
 * the auth part of the service's settings. `dev` is refused unless allowed (never on Lambda);
 * `anonymous` must be named explicitly like every other mode.
 */
export function authEnvironment(options: { allowDev: boolean }) {
  const modes = Object.values(AuthMode).filter((m) => options.allowDev || m !== AuthMode.Dev);
  const explicitly = `must be set explicitly to one of ${modeList(modes)}`;
  return v.pipe(
    // The object's own message is for its one required key: AUTH_MODE missing.
    v.object(
      {
        AUTH_MODE: v.picklist(modes, (issue) =>
          issue.input === AuthMode.Dev
            ? 'dev is for local development only and cannot be used here'
            : explicitly,
        ),
        AUTH_SETTINGS: v.optional(
          v.pipe(
            v.string(),
            v.transform((text) => text.trim() || '{}'),
            v.parseJson(undefined, 'must be JSON'),
            AuthSettingsBody,
          ),
          '{}',
        ),
        AUTH_SHARED_TOKEN: v.optional(v.pipe(v.string(), v.trim())),
        OIDC_CLIENT_SECRET: v.optional(v.pipe(v.string(), v.trim())),
      },
      explicitly,
    ),
    v.rawTransform(({ dataset, addIssue, NEVER }): AuthSettings => {
      const settings = modeSettings(dataset.value, (message, variable, ...fields) =>
        addIssue({ message, path: variablePath(dataset.value, variable, ...fields) }),
      );
      return settings ?? NEVER;
    }),
  );
}

interface AuthEnvironment {
  AUTH_MODE: AuthMode;
  AUTH_SETTINGS: v.InferOutput<typeof AuthSettingsBody>;
  AUTH_SHARED_TOKEN?: string | undefined;
  OIDC_CLIENT_SECRET?: string | undefined;
}

type Refuse = (message: string, variable: string, ...fields: string[]) => void;

/** The settings of the environment's mode; null when what the mode needs is missing (each refused). */
function modeSettings(env: AuthEnvironment, refuse: Refuse): AuthSettings | null {
  const { AUTH_MODE: mode, AUTH_SETTINGS: body } = env;
  const { limits } = body;
  if (mode === AuthMode.Dev) return { mode, limits };
  const sharedToken = env.AUTH_SHARED_TOKEN ?? '';
  const clientSecret = env.OIDC_CLIENT_SECRET ?? '';
  if (!body.public_origin) {
    refuse(
      `is needed in every mode but dev: the origin people and browsers reach the service at (https://svc.example.com), which every browser change's Origin must be (stage setting publicOrigin)`,
      'AUTH_SETTINGS',
      'public_origin',
    );
  }
  if (mode === AuthMode.SharedToken && sharedToken.length < 32) {
    refuse('must be at least 32 characters in shared-token mode', 'AUTH_SHARED_TOKEN');
  }
  if (mode === AuthMode.Oidc && !body.oidc)
    refuse('is needed in oidc mode (issuer, client_id…)', 'AUTH_SETTINGS', 'oidc');
  if (mode === AuthMode.Oidc && !clientSecret) refuse('is needed in oidc mode', 'OIDC_CLIENT_SECRET');
  if (!body.public_origin) return null;
  const publicOrigin = new URL(body.public_origin).origin;
  switch (mode) {
    case AuthMode.SharedToken:
      return sharedToken.length < 32
        ? null
        : { mode, sharedToken, grants: body.grants, limits, publicOrigin };
    case AuthMode.Anonymous:
      return { mode, grants: body.grants, limits, publicOrigin };
    case AuthMode.Oidc:
      return body.oidc && clientSecret
        ? { mode, oidc: { ...body.oidc, client_secret: clientSecret }, limits, publicOrigin }
        : null;
    case AuthMode.Token:
    case AuthMode.Password:
      return { mode, limits, publicOrigin };
  }
}
