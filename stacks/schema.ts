import { ClusterName, Compositions } from '@svc/core';
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

/** An SNS topic ARN; its region is the fourth field. */
const snsTopicArn = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):\d{12}:[A-Za-z0-9_-]{1,256}$/;

const StageFields = v.strictObject({
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
        ClusterName,
        // The name also makes the SST names of the cluster's access entries, which take no other characters.
        v.regex(/^[0-9A-Za-z][A-Za-z0-9_-]*$/, 'a stage names its clusters with letters, digits, - and _'),
      ),
      v.strictObject({ eksClusterName, region: v.optional(awsRegion) }),
    ),
    {},
  ),
  /** Previews answer at https://<composition-id>.<previewDomain>/. */
  previewDomain: dnsName,
  /**
   * The API's custom domain (`svc.acme.io`), with its certificate and alias record in the
   * account's Route 53 hosted zone for it (SST's `domain` on the API). Without one the API answers
   * at its API Gateway URL.
   */
  domain: v.optional(dnsName),
  /**
   * Where people and browsers reach the API, when it is neither `https://<domain>` nor the API
   * Gateway URL (a proxy in front): browsers' `Origin` must be it on every change
   * (AUTH_SETTINGS.public_origin). Default: `https://<domain>`, else the API's own URL.
   */
  publicOrigin: v.optional(v.pipe(v.string(), v.url(), v.startsWith('https://', 'an https:// origin'))),
  /**
   * Requests per second the API takes across all callers (API Gateway's stage throttling:
   * `rate` steady, `burst` at once); more answer 429 before reaching the function.
   */
  apiThrottle: v.optional(
    v.strictObject({
      rate: v.pipe(v.number(), v.minValue(1), v.maxValue(10_000)),
      burst: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5_000)),
    }),
    { rate: 50, burst: 100 },
  ),
  /**
   * Invocations reserved for the public webhook (Lambda reserved concurrency): what a flood of
   * requests to its URL can take of the account's concurrency, and what it always has.
   */
  webhookConcurrency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 5),
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
  /**
   * Per cluster (its name: the stage's own eksClusterName, or one of clusters): the projects whose
   * baselines may run there (absent: every project; a team's own cluster lists its own), and the
   * namespaces previews may use there (absent: previewNamespaces).
   */
  clusterAccess: v.optional(
    v.record(
      v.string(),
      v.strictObject({
        projects: v.optional(
          v.array(v.pipe(v.string(), v.regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a project name'))),
        ),
        previewNamespaces: v.optional(
          v.pipe(
            v.array(v.pipe(v.string(), v.regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a namespace name'))),
            v.minLength(1),
          ),
        ),
      }),
    ),
    {},
  ),
  /**
   * Whether the routing check may reach loopback, link-local and private addresses (preview gateways
   * inside the VPC). Off by default: a preview host that resolves to one is not connected to.
   */
  previewPrivateAddresses: v.optional(v.boolean(), false),
  /**
   * Previews that sleep when idle (docs/sleep.md): `default_after` for baselines that set no
   * `sleep` (absent: off), `max_after`, `crawler_user_agents`, as `SLEEP_SETTINGS` takes them.
   */
  sleep: v.optional(Compositions.SleepSettingsInput),
  /** Where the alarms (docs/runbooks.md) are mailed (confirm the subscription mail once). */
  alarmEmail: v.optional(v.pipe(v.string(), v.email())),
  /** An SNS topic of the operator's (a pager, a chat bridge), in the stage's region, the alarms notify as well. */
  alarmTopicArn: v.optional(v.pipe(v.string(), v.regex(snsTopicArn, 'an SNS topic ARN'))),
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

/** Every EKS cluster the stage names, as `<name>@<region>`, its own first. */
const eksClusters = (settings: v.InferOutput<typeof StageFields>) => [
  `${settings.eksClusterName}@${settings.region}`,
  ...Object.values(settings.clusters).map((c) => `${c.eksClusterName}@${c.region ?? settings.region}`),
];

/** Per-stage deployment settings, checked once when `sst.config.ts` loads the stage. */
export const StageSettings = v.pipe(
  StageFields,
  // CloudWatch alarms notify topics of their own region only.
  v.forward(
    v.check(
      (s) => !s.alarmTopicArn || s.alarmTopicArn.match(snsTopicArn)?.[1] === s.region,
      (issue) =>
        `alarmTopicArn must be a topic in the stage's region ${(issue.input as { region: string }).region}: CloudWatch alarms notify topics of their own region only`,
    ),
    ['alarmTopicArn'],
  ),
  // Each cluster gets the functions' access entries: EKS refuses a second entry for the same role.
  v.forward(
    v.check(
      (s) => new Set(eksClusters(s)).size === eksClusters(s).length,
      (issue) => {
        const all = eksClusters(issue.input as v.InferOutput<typeof StageFields>);
        const twice = all.filter((c, i) => all.indexOf(c) !== i);
        return `clusters lists the EKS cluster ${[...new Set(twice)].join(', ')} more than once (with eksClusterName): name each EKS cluster once`;
      },
    ),
    ['clusters'],
  ),
);
export type StageSettings = v.InferOutput<typeof StageSettings>;

export function defineStage(input: v.InferInput<typeof StageSettings>): StageSettings {
  return v.parse(StageSettings, input);
}

/** Names that mark a value as not filled in yet: the examples the repository ships. */
const placeholderDomain = /(^|\.)(example\.(com|org|net)|example|test|invalid|localhost)$/;
const placeholderClusterNames = new Set(['change-me', 'example', 'my-cluster']);

/** The stage that is always held to its description: no example domain, no placeholder, someone alarmed. */
const productionStage = 'production';

/**
 * What the stage's name may be: it names the stage's isolated queues (`preview_<stage>_…`, within
 * SQS's 80 characters) and the worker's grant on them, so it holds no `_`.
 */
const stageName = /^[a-z0-9][a-z0-9-]{0,19}$/;

/**
 * Why these settings cannot be deployed to this stage (empty when they can). Every stage needs a
 * name that fits its queue names. A stage that serves people must also be `described`: an alarm
 * recipient, and no value left as the repository's example. Production always is; the deploy
 * workflow checks every stage it deploys the same way (stacks/check.ts, docs/deploy.md), while a
 * stage deployed by hand to try things out may keep the examples and answer on its API URL.
 */
export function deployProblems(
  stage: string,
  settings: StageSettings,
  { described = stage === productionStage }: { described?: boolean } = {},
): string[] {
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
    ...Object.keys(settings.clusterAccess)
      .filter((name) => name !== settings.eksClusterName && !(name in settings.clusters))
      .map((name) => `clusterAccess names "${name}", which is not one of the stage's clusters`),
  ];
  if (!described) return named;
  const placeholder = (field: string, domain: string | undefined, what: string) =>
    domain !== undefined && placeholderDomain.test(domain) ? [`${field} is a placeholder: ${what}`] : [];
  return [
    ...named,
    ...(settings.alarmEmail || settings.alarmTopicArn
      ? []
      : ['no alarm recipient: set alarmEmail or alarmTopicArn, or alarms reach nobody']),
    ...placeholder(
      `previewDomain "${settings.previewDomain}"`,
      settings.previewDomain,
      'set the domain previews answer on',
    ),
    ...placeholder(
      `publicOrigin "${settings.publicOrigin}"`,
      settings.publicOrigin && new URL(settings.publicOrigin).hostname,
      'set the origin people reach the API at, or leave it out',
    ),
    ...placeholder(`domain "${settings.domain}"`, settings.domain, "set the API's domain, or leave it out"),
    ...placeholder(
      `alarmEmail "${settings.alarmEmail}"`,
      settings.alarmEmail?.split('@')[1],
      "set on-call's address, or use alarmTopicArn",
    ),
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
