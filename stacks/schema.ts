import * as v from 'valibot';

/**
 * Auth modes a deployed stage may use. `dev` is deliberately absent: a cloud stage can never select
 * it. `anonymous` is here because a stage must be able to choose it, explicitly (docs/auth.md).
 */
const cloudAuthModes = ['token', 'shared-token', 'password', 'oidc', 'anonymous'] as const;

const awsRegion = v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as eu-west-1'));
const eksClusterName = v.pipe(v.string(), v.regex(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, 'an EKS cluster name'));

const dnsName = v.pipe(
  v.string(),
  v.regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/,
    'a DNS name',
  ),
);

/** Per-stage deployment settings, checked once when `sst.config.ts` loads the stage. */
export const StageSettings = v.strictObject({
  region: awsRegion,
  /**
   * The stage's EKS cluster, in its region, reached through DescribeCluster + an STS-presigned
   * token; baselines name it by its own name (their catalog `cluster`).
   */
  eksClusterName,
  /**
   * Further clusters the stage may use: the name baselines give each (their catalog `cluster`) →
   * its EKS cluster and region (default the stage's). Each gets the API's and the worker's EKS
   * access entries; deploy/kubernetes/rbac.yaml is applied to each (docs/deploy.md).
   */
  clusters: v.optional(
    v.record(
      v.pipe(
        v.string(),
        v.regex(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, 'a cluster name (letters, digits, - and _)'),
      ),
      v.strictObject({ eksClusterName, region: v.optional(awsRegion) }),
    ),
    {},
  ),
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
  /** Where the alarms (docs/runbooks.md) are mailed (confirm the subscription mail once). */
  alarmEmail: v.optional(v.pipe(v.string(), v.email())),
  /** An SNS topic of the operator's (a pager, a chat bridge) the alarms notify as well. */
  alarmTopicArn: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, 'an SNS topic ARN'),
    ),
  ),
  /**
   * Worker invocations the job queue may run at once (the event source's maximum concurrency,
   * 2–1000): a burst cannot take the account's concurrency from the API and the webhook, or send
   * the EKS API server more than this many workers' requests. Default sized for one EKS control plane.
   */
  workerConcurrency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(1000)), 10),
  /**
   * For a cluster whose API endpoint is private: the API and the worker run in these subnets with
   * these security groups (docs/deploy.md says what the subnets must reach).
   */
  vpc: v.optional(
    v.strictObject({
      privateSubnets: v.pipe(
        v.array(v.pipe(v.string(), v.regex(/^subnet-[0-9a-f]{8,17}$/, 'a subnet id'))),
        v.minLength(1),
      ),
      securityGroups: v.pipe(
        v.array(v.pipe(v.string(), v.regex(/^sg-[0-9a-f]{8,17}$/, 'a security group id'))),
        v.minLength(1),
      ),
    }),
  ),
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
 * What the stage's name may be: it names the stage's isolated queues (`preview_<stage>_…`, within
 * SQS's 80 characters) and the worker's grant on them, so it holds no `_`.
 */
const stageName = /^[a-z0-9][a-z0-9-]{0,19}$/;

/**
 * Why these settings cannot be deployed to this stage (empty when they can). Only the production
 * stage is strict about placeholders: a staging stage on an example domain still answers on its API
 * URL. Every stage needs a name that fits its queue names.
 */
export function deployProblems(stage: string, settings: StageSettings): string[] {
  const named = [
    ...(stageName.test(stage)
      ? []
      : [
          `the stage name "${stage}" must be 1–20 lowercase letters, digits and hyphens: it names the stage's queues`,
        ]),
    ...(settings.eksClusterName in settings.clusters
      ? [
          `clusters names "${settings.eksClusterName}", the name of the stage's own eksClusterName: name it otherwise`,
        ]
      : []),
  ];
  if (stage !== productionStage) return named;
  return [
    ...named,
    ...(settings.alarmEmail || settings.alarmTopicArn
      ? []
      : ['no alarm recipient: set alarmEmail or alarmTopicArn, or alarms reach nobody']),
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
    ...Object.entries(settings.clusters)
      .filter(([, c]) => placeholderClusterNames.has(c.eksClusterName))
      .map(
        ([name, c]) =>
          `clusters.${name}.eksClusterName "${c.eksClusterName}" is a placeholder: set its EKS cluster`,
      ),
  ];
}
