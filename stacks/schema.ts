import * as v from 'valibot';

/**
 * Auth modes a deployed stage may use. `dev` is deliberately absent: a cloud stage can never select
 * it. `anonymous` is here because a stage must be able to choose it, explicitly (docs/auth.md).
 */
const cloudAuthModes = ['token', 'shared-token', 'password', 'oidc', 'anonymous'] as const;

const dnsName = v.pipe(
  v.string(),
  v.regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/,
    'a DNS name',
  ),
);

/** Per-stage deployment settings, checked once when `sst.config.ts` loads the stage. */
export const StageSettings = v.strictObject({
  region: v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as eu-west-1')),
  /** The EKS cluster running the baselines; reached through DescribeCluster + an STS-presigned token. */
  eksClusterName: v.pipe(v.string(), v.regex(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, 'an EKS cluster name')),
  /** Previews answer at https://<composition-id>.<previewDomain>/. */
  previewDomain: dnsName,
  authMode: v.picklist(cloudAuthModes),
  /**
   * The mode's settings besides its secrets (AUTH_SETTINGS: limits, oidc issuer and claim mapping,
   * the common grants of shared-token and anonymous modes), checked when a function starts.
   * Secrets are SST secrets: AuthSharedToken (shared-token), OidcClientSecret (oidc).
   */
  authSettings: v.optional(v.record(v.string(), v.unknown()), {}),
  /** Keep the table (and its data) when the stage is removed. */
  retainData: v.optional(v.boolean(), true),
});
export type StageSettings = v.InferOutput<typeof StageSettings>;

export function defineStage(input: v.InferInput<typeof StageSettings>): StageSettings {
  return v.parse(StageSettings, input);
}
