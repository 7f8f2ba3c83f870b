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
  /**
   * Where people and browsers reach the API (`https://svc.example.com`: a custom domain, or the API
   * Gateway URL after the first deploy). Browsers' `Origin` must be it on every change (AUTH_SETTINGS.public_origin).
   */
  publicOrigin: v.pipe(v.string(), v.url(), v.startsWith('https://', 'an https:// origin')),
  authMode: v.picklist(cloudAuthModes),
  /**
   * The mode's settings besides its secrets (AUTH_SETTINGS: limits, oidc issuer and claim mapping,
   * the common grants of shared-token and anonymous modes), checked when a function starts.
   * Secrets are SST secrets: AuthSharedToken (shared-token), OidcClientSecret (oidc).
   */
  authSettings: v.optional(v.record(v.string(), v.unknown()), {}),
  /** Keep the table (and its data) when the stage is removed. */
  retainData: v.optional(v.boolean(), true),
  /**
   * The operator's SNS topics that baselines publish to (catalog `messaging.topics`): message
   * isolation subscribes preview queues to these and only these. Names, `*` for any run of characters.
   */
  messageTopics: v.optional(
    v.array(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_*-]{1,256}$/, 'an SNS topic name'))),
    [],
  ),
  /**
   * The namespaces baselines (and so previews) may use (docs/catalog.md); absent for any but the
   * cluster's own and svc-system.
   */
  previewNamespaces: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a namespace name'))),
      v.minLength(1),
    ),
  ),
  /** Where the alarms (docs/runbooks.md) are mailed; without it they notify the Alarms topic only. */
  alarmEmail: v.optional(v.pipe(v.string(), v.email())),
});
export type StageSettings = v.InferOutput<typeof StageSettings>;

export function defineStage(input: v.InferInput<typeof StageSettings>): StageSettings {
  return v.parse(StageSettings, input);
}

/** Names that mark a value as not filled in yet: the examples the repository ships. */
const placeholderDomain = /(^|\.)(example\.(com|org|net)|example|test|invalid|localhost)$/;
const placeholderClusterNames = new Set(['change-me', 'example', 'my-cluster']);

/** The stage whose settings must be real: no example domain, no placeholder cluster name. */
const productionStage = 'production';

/**
 * Why these settings cannot be deployed to this stage (empty when they can). Only the production
 * stage is strict: a staging stage on an example domain still answers on its API URL.
 */
export function deployProblems(stage: string, settings: StageSettings): string[] {
  if (stage !== productionStage) return [];
  return [
    ...(placeholderDomain.test(settings.previewDomain)
      ? [`previewDomain "${settings.previewDomain}" is a placeholder: set the domain previews answer on`]
      : []),
    ...(placeholderDomain.test(new URL(settings.publicOrigin).hostname)
      ? [`publicOrigin "${settings.publicOrigin}" is a placeholder: set the origin people reach the API at`]
      : []),
    ...(placeholderClusterNames.has(settings.eksClusterName)
      ? [
          `eksClusterName "${settings.eksClusterName}" is a placeholder: set the EKS cluster running the baselines`,
        ]
      : []),
  ];
}
