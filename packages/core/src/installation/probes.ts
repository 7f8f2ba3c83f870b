/**
 * The probes of an installation check, one function each: it reads what it needs and answers
 * passed, failed or unknown with the evidence it read (the rules are tabled in
 * docs/installation.md). check.ts plans and runs them.
 */
import type { Baseline, ComponentProfile } from '../catalog/schema.ts';
import { CheckStatus } from '../checks/model.ts';
import type { ClusterObject, Condition } from '../cluster/objects.ts';
import type { ClusterPort } from '../cluster/ports.ts';
import { topicGranted } from '../messaging/ports.ts';
import { accessRequests, clusterGroups, describeAccess } from './permissions.ts';
import type { GatewayRef, InstallationCheckView } from './schema.ts';

const gatewayGroup = 'gateway.networking.k8s.io';
export const gatewayApiVersion = `${gatewayGroup}/v1`;

type Evidence = Record<string, unknown>;
export type Outcome = Omit<InstallationCheckView, 'id'>;

export const passed = (message: string, evidence: Evidence = {}): Outcome => ({
  status: CheckStatus.Passed,
  message,
  evidence,
});
export const failed = (message: string, evidence: Evidence = {}): Outcome => ({
  status: CheckStatus.Failed,
  message,
  evidence,
});
export const unknown = (message: string, evidence: Evidence = {}): Outcome => ({
  status: CheckStatus.Unknown,
  message,
  evidence,
});

/** One baseline to check, resolved from the catalog and the specification. */
export interface Target {
  project: string;
  baseline: Baseline;
  profiles: Readonly<Record<string, ComponentProfile>>;
  gateway: GatewayRef;
  gatewaySource: 'catalog' | 'specification';
}

/**
 * A failure to ask a cluster, as a check says it: the HTTP status and the Status's reason word, or
 * the error's first line (the adapter's, which quotes nothing the server sent); never a body.
 */
export function describeFailure(error: unknown): string {
  const e = error as { code?: unknown; reason?: unknown; message?: unknown; cause?: { code?: unknown } };
  const reason = typeof e?.reason === 'string' && /^[A-Za-z]{1,64}$/.test(e.reason) ? ` ${e.reason}` : '';
  if (typeof e?.code === 'number') return `HTTP ${e.code}${reason}`;
  const first = String(e?.message ?? error).split('\n')[0] ?? '';
  const cause = typeof e?.cause?.code === 'string' ? ` (${e.cause.code})` : '';
  return `${first}${cause}`.slice(0, 300);
}

export async function clusterCheck(name: string, cluster: ClusterPort): Promise<Outcome> {
  try {
    const { version, platform } = await cluster.serverVersion();
    return passed(`cluster "${name}": the Kubernetes API server answers: ${version} on ${platform}`, {
      cluster: name,
      version,
      platform,
    });
  } catch (error) {
    return failed(
      `cluster "${name}": the Kubernetes API server cannot be reached: ${describeFailure(error)}`,
      {
        cluster: name,
        error: describeFailure(error),
      },
    );
  }
}

export async function gatewayApiCheck(name: string, cluster: ClusterPort): Promise<Outcome> {
  const served = await cluster.servedResources(gatewayApiVersion);
  const on = `cluster "${name}": ${gatewayApiVersion}`;
  if (served === null) {
    return failed(
      `${on} is not served: install the Gateway API CRDs (v1.0 or later) and an implementation with GAMMA support`,
      { cluster: name, api_version: gatewayApiVersion, resources: null },
    );
  }
  const evidence = { cluster: name, api_version: gatewayApiVersion, resources: [...served].sort() };
  const missing = ['gateways', 'httproutes'].filter((r) => !served.includes(r));
  if (missing.length > 0) return failed(`${on} does not serve ${missing.join(' and ')}`, evidence);
  return passed(`${on} serves gateways and httproutes`, evidence);
}

export async function namespaceCheck(
  name: string,
  read: (name: string) => Promise<ClusterObject | null>,
): Promise<Outcome> {
  const namespace = await read(name);
  const phase = (namespace?.status as { phase?: string } | undefined)?.phase ?? null;
  const evidence = { namespace: name, phase };
  if (!namespace) return failed(`namespace ${name} not found`, evidence);
  if (namespace.metadata.deletionTimestamp || phase === 'Terminating') {
    return failed(`namespace ${name} is being deleted`, evidence);
  }
  return passed(`namespace ${name} exists`, evidence);
}

export async function workloadCheck(cluster: ClusterPort, t: Target, component: string): Promise<Outcome> {
  const profile = t.profiles[component];
  if (!profile) return failed(`component ${component} has no profile in project ${t.project}`);
  const ns = t.baseline.namespace;
  const { workload, service: serviceRef } = profile;
  const [deployment, service] = await Promise.all([
    cluster.getDeployment(ns, workload.name),
    cluster.getService(ns, serviceRef.name),
  ]);
  const containers = deployment?.spec.template.spec.containers ?? [];
  const container = containers.find((c) => c.name === workload.container);
  const ports = (service?.spec.ports ?? []).map((p) => p.port);
  const evidence = {
    deployment: `${ns}/${workload.name}`,
    container: workload.container,
    image: container?.image ?? null,
    available_replicas: deployment ? (deployment.status?.availableReplicas ?? 0) : null,
    service: `${ns}/${serviceRef.name}`,
    port: serviceRef.port,
  };
  const problems: string[] = [];
  if (!deployment) problems.push(`Deployment ${ns}/${workload.name} not found`);
  else if (!container) {
    const names = containers.map((c) => c.name).join(', ') || 'none';
    problems.push(
      `Deployment ${ns}/${workload.name} has no container "${workload.container}" (it has: ${names})`,
    );
  }
  if (!service) problems.push(`Service ${ns}/${serviceRef.name} not found`);
  else if (!ports.includes(serviceRef.port)) {
    problems.push(
      `Service ${ns}/${serviceRef.name} has no port ${serviceRef.port} (it has: ${ports.join(', ') || 'none'})`,
    );
  }
  if (problems.length > 0) return failed(problems.join('; '), evidence);
  return passed(
    `Deployment ${workload.name} (container ${workload.container}) and Service ${serviceRef.name}:${serviceRef.port} exist`,
    evidence,
  );
}

interface StatusCondition extends Condition {
  observedGeneration?: number;
}

/** A condition written for an older generation of its object says nothing about the current one. */
function currentCondition(
  conditions: readonly StatusCondition[] | undefined,
  type: string,
  generation: number | undefined,
): StatusCondition | undefined {
  const condition = conditions?.find((c) => c.type === type);
  if (!condition) return undefined;
  const stale =
    condition.observedGeneration !== undefined &&
    generation !== undefined &&
    condition.observedGeneration < generation;
  return stale ? undefined : condition;
}

const conditionText = (c: StatusCondition) => `${c.reason ?? c.status}${c.message ? `: ${c.message}` : ''}`;

export async function gatewayCheck(
  t: Target,
  read: (ref: GatewayRef) => Promise<ClusterObject | null>,
): Promise<Outcome> {
  const ref = `${t.gateway.namespace}/${t.gateway.name}`;
  const gateway = await read(t.gateway);
  if (!gateway) {
    return failed(
      `Gateway ${ref} not found: create it, or name an existing one as the baseline's gateway (catalog) or the target's gateway (specification)`,
      { gateway: ref, source: t.gatewaySource },
    );
  }
  const gatewayClass = (gateway.spec as { gatewayClassName?: string } | undefined)?.gatewayClassName ?? null;
  const found = (['Accepted', 'Programmed'] as const).map((type) => ({
    type,
    condition: currentCondition(
      (gateway.status as { conditions?: StatusCondition[] } | undefined)?.conditions,
      type,
      gateway.metadata.generation,
    ),
  }));
  const evidence = {
    gateway: ref,
    source: t.gatewaySource,
    gateway_class: gatewayClass,
    conditions: Object.fromEntries(
      found.map(({ type, condition }) => [
        type,
        condition ? { status: condition.status, reason: condition.reason ?? null } : null,
      ]),
    ),
  };
  const refused = found.find(({ condition }) => condition?.status === 'False');
  if (refused?.condition) {
    return failed(`Gateway ${ref} is not ${refused.type}: ${conditionText(refused.condition)}`, evidence);
  }
  if (found.every(({ condition }) => condition?.status === 'True')) {
    return passed(`Gateway ${ref} is Accepted and Programmed (class ${gatewayClass})`, evidence);
  }
  return unknown(
    `Gateway ${ref} reports no current Accepted and Programmed conditions: is the controller of GatewayClass ${gatewayClass} running?`,
    evidence,
  );
}

/** The Gateway API feature the pending mark needs (HTTPRoute ResponseHeaderModifier, Extended). */
const responseHeaderFeature = 'HTTPRouteResponseHeaderModification';

/** `status.supportedFeatures`: `{ name }` objects since Gateway API v1.2, plain names before; null when absent. */
function supportedFeatures(gatewayClass: ClusterObject): string[] | null {
  const listed = (gatewayClass.status as { supportedFeatures?: unknown } | undefined)?.supportedFeatures;
  if (!Array.isArray(listed) || listed.length === 0) return null;
  return listed
    .map((f: unknown) => (typeof f === 'string' ? f : (f as { name?: unknown } | null)?.name))
    .filter((name): name is string => typeof name === 'string');
}

/**
 * Whether the Gateway's implementation adds response headers (HTTPRoute ResponseHeaderModifier): the
 * public route of a preview still rolling out carries one, so answers say `Preview-Rollout: pending`.
 * The GatewayClass says so in `status.supportedFeatures`; one that lists nothing cannot be asked.
 */
export async function gatewayFeaturesCheck(
  t: Target,
  readGateway: (ref: GatewayRef) => Promise<ClusterObject | null>,
  readClass: (name: string) => Promise<ClusterObject | null>,
): Promise<Outcome> {
  const ref = `${t.gateway.namespace}/${t.gateway.name}`;
  const gateway = await readGateway(t.gateway);
  const className = (gateway?.spec as { gatewayClassName?: string } | undefined)?.gatewayClassName;
  if (!gateway || !className)
    return failed(`Gateway ${ref} not found, or it names no GatewayClass`, { gateway: ref });
  const gatewayClass = await readClass(className);
  if (!gatewayClass) {
    return failed(`GatewayClass ${className} of Gateway ${ref} not found`, {
      gateway: ref,
      gateway_class: className,
    });
  }
  const features = supportedFeatures(gatewayClass);
  const evidence = {
    gateway: ref,
    gateway_class: className,
    controller: (gatewayClass.spec as { controllerName?: string } | undefined)?.controllerName ?? null,
    supported_features: features,
  };
  if (features === null) {
    return unknown(
      `GatewayClass ${className} publishes no status.supportedFeatures, so whether it supports ${responseHeaderFeature} (the Preview-Rollout: pending mark) cannot be asked: see its documentation`,
      evidence,
    );
  }
  if (!features.includes(responseHeaderFeature)) {
    return failed(
      `GatewayClass ${className} does not list ${responseHeaderFeature}: the public routes of previews still rolling out carry a ResponseHeaderModifier (Preview-Rollout: pending), which it may refuse (Accepted=False) or drop`,
      evidence,
    );
  }
  return passed(`GatewayClass ${className} supports ${responseHeaderFeature}`, evidence);
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

interface Listener {
  name: string;
  protocol?: string;
  hostname?: string;
  allowedRoutes?: {
    namespaces?: { from?: string; selector?: LabelSelector };
    kinds?: { group?: string; kind: string }[];
  };
}

/** Whether a label selector selects these labels; null for an operator we do not know. */
function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean | null {
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {}))
    if (labels[key] !== value) return false;
  for (const e of selector?.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    if (e.operator === 'In' && !(has && (e.values ?? []).includes(value as string))) return false;
    else if (e.operator === 'NotIn' && has && (e.values ?? []).includes(value as string)) return false;
    else if (e.operator === 'Exists' && !has) return false;
    else if (e.operator === 'DoesNotExist' && has) return false;
    else if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator)) return null;
  }
  return true;
}

/** A listener hostname covers every `<id>.<domain>` when it is absent or a wildcard over the domain. */
function coversPreviewHosts(hostname: string | undefined, domain: string): boolean {
  if (!hostname) return true;
  if (!hostname.startsWith('*.')) return false;
  const suffix = hostname.slice(2).toLowerCase();
  return domain === suffix || domain.endsWith(`.${suffix}`);
}

export async function listenerCheck(
  t: Target,
  readGateway: (ref: GatewayRef) => Promise<ClusterObject | null>,
  readNamespace: (name: string) => Promise<ClusterObject | null>,
): Promise<Outcome> {
  const ref = `${t.gateway.namespace}/${t.gateway.name}`;
  const gateway = await readGateway(t.gateway);
  if (!gateway) return failed(`Gateway ${ref} not found`, { gateway: ref });
  const ns = t.baseline.namespace;
  const domain = t.baseline.preview_domain;
  const listeners = (gateway.spec as { listeners?: Listener[] } | undefined)?.listeners ?? [];
  const verdicts = await Promise.all(listeners.map((l) => listenerVerdict(l, t, readNamespace)));
  const evidence = { gateway: ref, namespace: ns, preview_domain: domain, listeners: verdicts };
  const admitting = verdicts.find((v) => v.admits === true);
  if (admitting) {
    return passed(
      `listener ${admitting.listener} of Gateway ${ref} admits HTTPRoutes for *.${domain} from namespace ${ns}`,
      evidence,
    );
  }
  const summary = verdicts.map((v) => `${v.listener}: ${v.why}`).join('; ') || 'it has no listeners';
  if (verdicts.some((v) => v.admits === null)) {
    return unknown(
      `whether Gateway ${ref} admits this baseline's preview routes is undecided (${summary})`,
      evidence,
    );
  }
  return failed(
    `no listener of Gateway ${ref} admits HTTPRoutes for *.${domain} from namespace ${ns} (${summary})`,
    evidence,
  );
}

interface ListenerVerdict {
  listener: string;
  /** null: undecided (an unknown setting, or labels that could not be read). */
  admits: boolean | null;
  why: string;
}

/** Whether one listener admits the baseline's preview routes: protocol, hostname, kinds, then namespaces. */
async function listenerVerdict(
  l: Listener,
  t: Target,
  readNamespace: (name: string) => Promise<ClusterObject | null>,
): Promise<ListenerVerdict> {
  const ns = t.baseline.namespace;
  const no = (why: string) => ({ listener: l.name, admits: false, why });
  const undecided = (why: string) => ({ listener: l.name, admits: null, why });
  if (l.protocol !== 'HTTP' && l.protocol !== 'HTTPS')
    return no(`protocol ${l.protocol} carries no HTTPRoutes`);
  if (!coversPreviewHosts(l.hostname, t.baseline.preview_domain))
    return no(`hostname ${l.hostname} does not cover *.${t.baseline.preview_domain}`);
  const kinds = l.allowedRoutes?.kinds ?? [];
  if (
    kinds.length > 0 &&
    !kinds.some((k) => k.kind === 'HTTPRoute' && (k.group ?? gatewayGroup) === gatewayGroup)
  ) {
    return no('its allowedRoutes.kinds leave out HTTPRoute');
  }
  const from = l.allowedRoutes?.namespaces?.from ?? 'Same';
  const yes = {
    listener: l.name,
    admits: true,
    why: `routes from ${from === 'Same' ? 'its own namespace' : from}`,
  };
  if (from === 'All') return yes;
  if (from === 'Same')
    return ns === t.gateway.namespace
      ? yes
      : no(`it admits routes from namespace ${t.gateway.namespace} only`);
  if (from !== 'Selector') return undecided(`allowedRoutes.namespaces.from ${from} is not understood`);
  const namespace = await readNamespace(ns).catch(() => undefined);
  if (namespace === undefined) return undecided(`the labels of namespace ${ns} could not be read`);
  const match = selects(l.allowedRoutes?.namespaces?.selector, namespace?.metadata.labels ?? {});
  if (match === null) return undecided('its namespace selector uses an unknown operator');
  return match ? yes : no(`its namespace selector does not select namespace ${ns}`);
}

interface ParentRef {
  group?: string;
  kind?: string;
  name: string;
  namespace?: string;
  port?: number;
}

const isServiceParent = (ref: ParentRef) =>
  ref.kind === 'Service' && (ref.group === '' || ref.group === 'core');

interface Route extends ClusterObject {
  spec?: {
    parentRefs?: ParentRef[];
    rules?: { matches?: { headers?: { type?: string; name: string }[] }[] }[];
  };
  status?: { parents?: { parentRef: ParentRef; controllerName?: string; conditions?: StatusCondition[] }[] };
}

interface MeshParent {
  route: string;
  parent: string;
  controller: string | null;
}

/** What controllers said of the namespace's Service-parented HTTPRoutes. */
function meshRouteStatuses(objects: readonly ClusterObject[]) {
  const accepted: (MeshParent & { regex: boolean })[] = [];
  const refused: (MeshParent & { reason: string | null; message: string | null })[] = [];
  let serviceParented = 0;
  for (const route of objects as Route[]) {
    if (!(route.spec?.parentRefs ?? []).some(isServiceParent)) continue;
    serviceParented++;
    const regex = (route.spec?.rules ?? []).some((rule) =>
      (rule.matches ?? []).some((m) => (m.headers ?? []).some((h) => h.type === 'RegularExpression')),
    );
    for (const parent of route.status?.parents ?? []) {
      if (!isServiceParent(parent.parentRef)) continue;
      const condition = currentCondition(parent.conditions, 'Accepted', route.metadata.generation);
      const seen = {
        route: route.metadata.name,
        parent: `Service ${parent.parentRef.name}`,
        controller: parent.controllerName ?? null,
      };
      if (condition?.status === 'True') accepted.push({ ...seen, regex });
      else if (condition?.status === 'False') {
        refused.push({ ...seen, reason: condition.reason ?? null, message: condition.message ?? null });
      }
    }
  }
  return { accepted, refused, serviceParented };
}

/**
 * Only a controller proves mesh routing works: some HTTPRoute on a Service in the namespace must
 * have been Accepted by one, ideally one with a RegularExpression header match (as ours have).
 */
export function meshControllerVerdict(namespace: string, objects: readonly ClusterObject[]): Outcome {
  const { accepted, refused, serviceParented } = meshRouteStatuses(objects);
  const evidence = {
    namespace,
    service_parented_routes: serviceParented,
    accepted: accepted.slice(0, 5),
    refused: refused.slice(0, 5),
  };
  const proof = accepted.find((a) => a.regex);
  if (proof) {
    return passed(
      `HTTPRoute ${namespace}/${proof.route} on ${proof.parent} uses a RegularExpression header match and is Accepted by ${proof.controller}`,
      { ...evidence, proof },
    );
  }
  const unsupported = refused.find((r) => r.reason === 'UnsupportedValue');
  if (unsupported) {
    return failed(
      `${unsupported.controller} refuses HTTPRoute ${namespace}/${unsupported.route} on ${unsupported.parent}: ${unsupported.reason}: ${unsupported.message}`,
      evidence,
    );
  }
  if (accepted.length > 0) {
    return unknown(
      `Service-parented HTTPRoutes in ${namespace} are Accepted, but none with a RegularExpression header match yet: create a composition that overrides a component, and check again once it is ready`,
      evidence,
    );
  }
  return unknown(
    serviceParented === 0
      ? `no HTTPRoute in ${namespace} has a Service parent yet, so no controller has shown it routes them: create a composition that overrides a component, and check again once it is ready`
      : `${serviceParented} Service-parented HTTPRoute(s) in ${namespace}, none Accepted by a controller: is a Gateway API implementation with GAMMA support (e.g. Istio) running for this namespace?`,
    evidence,
  );
}

/**
 * The worker's permissions. Where the API runs as its own group (the access entries, the local
 * stack's own clusters), the worker is another identity, so its group is reviewed
 * (LocalSubjectAccessReviews); where the API's identity is in no such group (one kubeconfig for
 * both, e.g. a team's own cluster), that identity is the worker's too and reviews itself.
 */
export async function permissionsCheck(cluster: ClusterPort, namespace: string): Promise<Outcome> {
  const requests = accessRequests(namespace);
  const self = await cluster.identity();
  const shared = self !== null && !self.groups.includes(clusterGroups.api);
  const answers = await cluster.reviewAccess(
    requests,
    shared ? undefined : { groups: [clusterGroups.worker] },
  );
  const denied = requests.filter((_, i) => answers[i]?.allowed !== true).map(describeAccess);
  const subject = shared ? `user ${self.user}` : `group ${clusterGroups.worker}`;
  const evidence = { namespace, subject, reviewed: requests.length, denied };
  const who = shared
    ? `the cluster identity the API and the worker share (${subject})`
    : `the worker's cluster identity (${subject})`;
  if (denied.length > 0) {
    return failed(`${who} may not, in namespace ${namespace}: ${denied.join(', ')}`, evidence);
  }
  return passed(
    `${who} may do all the worker does in namespace ${namespace} (${requests.length} access reviews)`,
    evidence,
  );
}

/**
 * Message isolation needs the worker to subscribe to each of the baseline's topics: a topic the
 * stage's `messageTopics` do not grant would fail every isolated create. Asks nothing of the cluster.
 */
export function messagingCheck(t: Target, messageTopics: readonly string[]): Outcome {
  const topics = t.baseline.messaging?.topics ?? [];
  const refused = topics.filter((topic) => !topicGranted(topic, messageTopics));
  const evidence = { topics, granted: messageTopics, not_granted: refused };
  if (refused.length > 0) {
    return failed(
      `the stage does not grant ${refused.map((topic) => `"${topic}"`).join(', ')}: add ${refused.length > 1 ? 'them' : 'it'} to messageTopics in stacks/<stage>.ts and deploy, or remove ${refused.length > 1 ? 'them' : 'it'} from the baseline's messaging.topics`,
      evidence,
    );
  }
  return passed(`the stage grants every topic of the baseline (${topics.join(', ')})`, evidence);
}
