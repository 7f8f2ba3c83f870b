/**
 * The catalog application manifest: what `POST /v1/catalog/apply` registers. Documented in
 * docs/catalog.md. Shape errors are reported by valibot; cross-references by `validate.ts`.
 */

import * as v from 'valibot';
import { parseDuration } from '../duration.ts';
import { ImageReference } from '../images.ts';
import { ClusterName, dnsLabel, ResourceName } from '../names.ts';

const labelKey = v.pipe(
  v.string(),
  v.regex(
    /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/,
    'a Kubernetes label key',
  ),
);
const labelValue = v.pipe(
  v.string(),
  v.regex(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/, 'a Kubernetes label value'),
);
const port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));
const hostname = v.pipe(
  v.string(),
  v.regex(
    /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/,
    'a DNS name',
  ),
);

/**
 * Bounds on every list and map of a manifest, so a body's size in entries is bounded as well as in
 * bytes (docs/catalog.md, "Limits").
 */
const manifestLimits = {
  componentsPerProject: 200,
  baselinesPerProject: 20,
  dependencies: 50,
  logSelectorLabels: 10,
  messageSubscriptions: 10,
  observabilityLinks: 20,
  topics: 20,
} as const;

const boundedList = <TItem extends v.GenericSchema>(item: TItem, max: number) =>
  v.pipe(v.array(item), v.maxLength(max, `at most ${max} entries`));
const boundedMap = <TKey extends v.GenericSchema<string, string>, TValue extends v.GenericSchema>(
  key: TKey,
  value: TValue,
  max: number,
) => v.pipe(v.record(key, value), v.maxEntries(max, `at most ${max} entries`));

/**
 * A path on the preview host, nothing else: it starts with one `/` and holds only URL path and
 * query characters, so it cannot name another host (`//host`, `/\host`) or smuggle one through
 * characters a URL parser drops (tabs, newlines).
 */
const previewPath = v.pipe(
  v.string(),
  v.maxLength(1024),
  v.regex(
    /^\/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/,
    'a path on the preview host: "/" then URL path characters, not "//"',
  ),
);

/**
 * A link template: http(s) only, so a catalog cannot hand a client a `javascript:` or `data:` link.
 * Its `{placeholder}`s make it an RFC 6570 URI template, not a URI: a validating client given
 * `format: uri` refuses every template that has one.
 */
const linkTemplate = v.pipe(
  v.string(),
  v.maxLength(2048),
  v.url(),
  v.regex(/^https?:\/\//i, 'an http or https URL'),
  v.metadata({ format: 'uri-template' }),
);

const WorkloadRef = v.strictObject({
  kind: v.optional(v.picklist(['Deployment']), 'Deployment'),
  /** The baseline Deployment's name in the baseline namespace. */
  name: dnsLabel(63, 'workload name'),
  /** The container whose image an override replaces. */
  container: dnsLabel(63, 'container name'),
});

const ServiceRef = v.strictObject({
  name: dnsLabel(63, 'service name'),
  port,
});

const MessageSubscription = v.strictObject({
  /** The operator's topic (name or ARN) the component consumes from. */
  topic: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
  /** Environment variable through which the component reads its queue URL. */
  queue_env: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')),
    'QUEUE_URL',
  ),
});

const VerificationContract = v.strictObject({
  /** Path requested through the preview URL by the routing check. */
  path: v.optional(previewPath, '/'),
  expect_status: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)), 200),
});

export const ComponentProfile = v.strictObject({
  name: ResourceName,
  workload: WorkloadRef,
  /** Container port the workload listens on. */
  port,
  service: ServiceRef,
  dependencies: v.optional(boundedList(ResourceName, manifestLimits.dependencies), []),
  /** Labels selecting the component's pods for log snapshots; defaults to the workload's name label. */
  log_selector: v.optional(boundedMap(labelKey, labelValue, manifestLimits.logSelectorLabels)),
  resources: v.optional(
    v.strictObject({
      cpu_millicores: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64_000)),
      memory_mib: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(262_144)),
    }),
    { cpu_millicores: 100, memory_mib: 128 },
  ),
  message_subscriptions: v.optional(
    boundedList(MessageSubscription, manifestLimits.messageSubscriptions),
    [],
  ),
  verification: v.optional(VerificationContract, {}),
});
export type ComponentProfile = v.InferOutput<typeof ComponentProfile>;

const BaselineComponent = v.strictObject({
  image: ImageReference,
  replicas: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)), 1),
});

const Messaging = v.strictObject({
  /** SNS topics (name or ARN) whose subscriptions the operator set up to exclude routed messages. */
  topics: v.pipe(
    boundedList(v.pipe(v.string(), v.minLength(1), v.maxLength(256)), manifestLimits.topics),
    v.minLength(1),
  ),
  /** Message attribute carrying the routing key. */
  routing_attribute: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{1,256}$/)), 'preview_route'),
});

/** Bounds of a baseline's `sleep.after`: docs/sleep.md. */
const sleepAfterLimits = { minSeconds: 5, maxSeconds: 24 * 3600 } as const;

/** A duration such as `30m` or `1h30m` within `sleepAfterLimits`. */
export const SleepAfter = v.pipe(
  v.string(),
  v.check((text) => {
    const seconds = parseDuration(text);
    return (
      seconds !== null && seconds >= sleepAfterLimits.minSeconds && seconds <= sleepAfterLimits.maxSeconds
    );
  }, 'a duration such as 30m or 1h30m, between 5s and 24h'),
);

/**
 * When a composition's forks sleep: after `after` without a request routed to them or a message on
 * their isolated queue. Absent: the stage's default (off unless set); null: never, whatever it is.
 */
const Sleep = v.strictObject({ after: SleepAfter });

export const Baseline = v.strictObject({
  name: ResourceName,
  namespace: dnsLabel(63, 'namespace'),
  /** The cluster the namespace lives in (the EKS cluster name, or `local`). */
  cluster: ClusterName,
  preview_domain: hostname,
  /** The component the public preview URL reaches first. */
  entry_component: ResourceName,
  /** The Gateway API Gateway public preview routes attach to. */
  gateway: v.optional(
    v.strictObject({ name: dnsLabel(63, 'gateway name'), namespace: dnsLabel(63, 'gateway namespace') }),
    { name: 'preview', namespace: 'svc-system' },
  ),
  /** Link templates resolved by GET …/observability; placeholders are listed in docs/catalog.md. */
  observability: v.optional(
    boundedMap(
      v.pipe(v.string(), v.regex(/^[a-z0-9_-]{1,63}$/)),
      linkTemplate,
      manifestLimits.observabilityLinks,
    ),
    {},
  ),
  components: boundedMap(ResourceName, BaselineComponent, manifestLimits.componentsPerProject),
  messaging: v.optional(v.nullable(Messaging), null),
  sleep: v.optional(v.nullable(Sleep)),
});
export type Baseline = v.InferOutput<typeof Baseline>;

export const ProjectManifest = v.strictObject({
  name: ResourceName,
  default_baseline: ResourceName,
  components: boundedList(ComponentProfile, manifestLimits.componentsPerProject),
  baselines: boundedList(Baseline, manifestLimits.baselinesPerProject),
});
export type ProjectManifest = v.InferOutput<typeof ProjectManifest>;

/** One apply writes at most this many projects: their version pointers flip in one transaction. */
const maxProjectsPerManifest = 25;

export const CatalogManifest = v.strictObject({
  projects: v.pipe(
    v.array(ProjectManifest),
    v.minLength(1, 'a manifest names at least one project'),
    v.maxLength(maxProjectsPerManifest, `a manifest names at most ${maxProjectsPerManifest} projects`),
  ),
});
export type CatalogManifest = v.InferOutput<typeof CatalogManifest>;

/** What the catalog read routes answer; the schemas feed the OpenAPI document. */

export const ProjectView = v.object({
  name: v.string(),
  default_baseline: v.string(),
  version: v.number(),
  applied_at: v.string(),
  components: v.array(v.string()),
  baselines: v.array(v.string()),
});
export type ProjectView = v.InferOutput<typeof ProjectView>;

export const ComponentView = v.object({
  ...v.omit(ComponentProfile, ['log_selector']).entries,
  log_selector: v.record(v.string(), v.string()),
  revision: v.number(),
});
export type ComponentView = v.InferOutput<typeof ComponentView>;

export const BaselineView = v.object({ ...Baseline.entries, revision: v.number() });
export type BaselineView = v.InferOutput<typeof BaselineView>;

/** `POST /v1/catalog/validate`: every problem of the manifest, by path. */
export const CatalogValidationView = v.object({
  valid: v.boolean(),
  problems: v.array(v.object({ path: v.string(), code: v.string(), message: v.string() })),
});

/** `POST /v1/catalog/apply`: what changed; each project with its version and revisions. */
export const ApplyView = v.object({
  changed: v.boolean(),
  projects: v.array(
    v.object({
      name: v.string(),
      version: v.number(),
      changed: v.boolean(),
      revisions: v.record(v.string(), v.number()),
    }),
  ),
});
export type ApplyResult = v.InferOutput<typeof ApplyView>;
