/**
 * The steps of create, update and destroy. Each is safe to run twice: cluster writes are
 * server-side applies or deletes-if-present, and waits re-read the cluster.
 */
import {
  anchor,
  anchorName,
  type Baseline,
  type Blocker,
  CheckKind,
  type CheckRecord,
  CheckStatus,
  type ClusterObject,
  type ComponentProfile,
  CompositionKinds,
  type CompositionRecord,
  Coverage,
  compositionSelector,
  condition,
  type Deployment,
  fingerprint,
  forkDeployment,
  forkService,
  IdPrefix,
  isolatedQueuePrefix,
  Label,
  meshRoute,
  newId,
  type Operation,
  ownerReference,
  Phase,
  type ProjectVersion,
  publicRoute,
  refOf,
} from '@svc/core';
import type { WorkerDeps } from './deps.ts';
import { isolate } from './isolation.ts';

export class Superseded extends Error {
  override name = 'Superseded';
}

export interface StepContext {
  deps: WorkerDeps;
  composition: CompositionRecord;
  operation: Operation;
  /** Re-reads the composition; throws Superseded when this operation is no longer the current one. */
  fence(): Promise<CompositionRecord>;
}

export type StepOutcome =
  | { kind: 'done'; composition?: CompositionRecord }
  | { kind: 'wait'; delaySeconds: number; observations: Operation['observations']; progress?: string }
  | { kind: 'fail'; blockers: Blocker[] };

type Step = (context: StepContext) => Promise<StepOutcome>;

const waitingReasons: Record<string, string> = {
  ErrImagePull: 'image_pull_failed',
  ImagePullBackOff: 'image_pull_failed',
  CrashLoopBackOff: 'crash_loop',
};

const routeKinds = [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' }] as const;
const forkKinds = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'v1', kind: 'Service' },
] as const;

interface Target {
  catalog: ProjectVersion;
  baseline: Baseline;
  profiles: Record<string, ComponentProfile>;
}

/** The catalog entries a rollout needs, or the blockers saying what is missing. */
async function target(context: StepContext): Promise<Target | { kind: 'fail'; blockers: Blocker[] }> {
  const { composition } = context;
  const catalog = await context.deps.catalog.readVersion(
    composition.project,
    composition.desired.catalog_version_id,
  );
  const baseline = catalog?.baselines[composition.baseline]?.spec;
  if (!catalog || !baseline) {
    return fail(
      'baseline_missing',
      `baseline "${composition.baseline}" of project "${composition.project}" is no longer registered`,
    );
  }
  const profiles: Record<string, ComponentProfile> = {};
  for (const name of [...Object.keys(composition.desired.images), baseline.entry_component]) {
    const profile = catalog.components[name]?.spec;
    if (!profile) return fail('component_missing', `component "${name}" is no longer registered`, name);
    profiles[name] = profile;
  }
  return { catalog, baseline, profiles };
}

function fail(
  code: string,
  message: string,
  component: string | null = null,
): { kind: 'fail'; blockers: Blocker[] } {
  return { kind: 'fail', blockers: [{ code, message, component }] };
}

/** Anchor, forks and their Services, and the public route; forks of components no longer overridden go. */
const apply: Step = async (context) => {
  const { deps, composition, operation } = context;
  const found = await target(context);
  if ('kind' in found) return found;
  const { baseline, profiles } = found;
  const namespace = composition.namespace;
  const overrides = Object.entries(composition.desired.images);

  const bases = await Promise.all(
    overrides.map(async ([component]) => {
      const profile = profiles[component] as ComponentProfile;
      const [deployment, service] = await Promise.all([
        deps.cluster.getDeployment(namespace, profile.workload.name),
        deps.cluster.getService(namespace, profile.service.name),
      ]);
      return { component, profile, deployment, service };
    }),
  );
  const blockers: Blocker[] = [];
  for (const { component, profile, deployment, service } of bases) {
    if (!deployment) {
      blockers.push({
        code: 'baseline_workload_missing',
        message: `baseline Deployment ${namespace}/${profile.workload.name} of "${component}" does not exist`,
        component,
      });
    } else if (!deployment.spec.template.spec.containers.some((c) => c.name === profile.workload.container)) {
      blockers.push({
        code: 'container_missing',
        message: `baseline Deployment ${namespace}/${profile.workload.name} has no container "${profile.workload.container}"`,
        component,
      });
    }
    if (!service) {
      blockers.push({
        code: 'baseline_service_missing',
        message: `baseline Service ${namespace}/${profile.service.name} of "${component}" does not exist`,
        component,
      });
    }
  }
  if (blockers.length) return { kind: 'fail', blockers };

  await context.fence();
  // Queues first: each fork's pods are told where their isolated queues are.
  const isolation = await isolate(deps, composition, baseline, profiles);
  if (isolation.blockers.length) return { kind: 'fail', blockers: isolation.blockers };
  const owner = ownerReference(
    await deps.cluster.apply(anchor(composition.id, namespace, operation.generation)),
  );
  await Promise.all(
    bases.flatMap(({ component, profile, deployment, service }) => {
      const input = {
        id: composition.id,
        generation: operation.generation,
        component,
        profile,
        baseline,
        baselineDeployment: deployment as Deployment,
        baselineService: service,
        image: composition.desired.images[component]?.image as string,
        owner,
        progressDeadlineSeconds: deps.settings.progressDeadlineSeconds,
        env: isolation.env[component] ?? [],
      };
      return [deps.cluster.apply(forkDeployment(input)), deps.cluster.apply(forkService(input))];
    }),
  );
  // A public route to the baseline entry is right at any time; one to an entry fork waits until the fork is rolled out.
  if (!(baseline.entry_component in composition.desired.images)) {
    await deps.cluster.apply(routeToEntry(composition, baseline, profiles, owner));
  }
  await removeInherited(deps, composition);
  return { kind: 'done' };
};

function routeToEntry(
  composition: CompositionRecord,
  baseline: Baseline,
  profiles: Record<string, ComponentProfile>,
  owner: ReturnType<typeof ownerReference>,
): ClusterObject {
  return publicRoute({
    id: composition.id,
    baseline,
    entry: profiles[baseline.entry_component] as ComponentProfile,
    entryOverridden: baseline.entry_component in composition.desired.images,
    owner,
  });
}

/** Components that went back to inheritance: their route goes first, so traffic returns to the baseline, then the fork. */
async function removeInherited(deps: WorkerDeps, composition: CompositionRecord): Promise<void> {
  const desired = new Set(Object.keys(composition.desired.images));
  const stale = (objects: ClusterObject[]) =>
    objects.filter((o) => {
      const component = o.metadata.labels?.[Label.Component];
      return component !== undefined && !desired.has(component);
    });
  const selector = compositionSelector(composition.id);
  for (const kinds of [routeKinds, forkKinds]) {
    const objects = stale(await deps.cluster.list(composition.namespace, kinds, selector));
    await Promise.all(objects.map((o) => deps.cluster.delete(refOf(o))));
  }
}

function rolledOut(deployment: Deployment | undefined, image: string, container: string): boolean {
  if (!deployment?.status) return false;
  const spec = deployment.spec;
  const status = deployment.status;
  const replicas = spec.replicas ?? 1;
  if ((status.observedGeneration ?? 0) < (deployment.metadata.generation ?? 0)) return false;
  if (spec.template.spec.containers.find((c) => c.name === container)?.image !== image) return false;
  if (
    status.updatedReplicas !== replicas ||
    status.availableReplicas !== replicas ||
    status.replicas !== replicas
  )
    return false;
  const progressing = condition(deployment, 'Progressing');
  return progressing === undefined || progressing.reason === 'NewReplicaSetAvailable';
}

/** Waits on the forks' Deployment conditions (a bounded watch), then routes keyed and public traffic to them. */
const awaitRollout: Step = async (context) => {
  const { deps, composition, operation } = context;
  const found = await target(context);
  if ('kind' in found) return found;
  const { baseline, profiles } = found;
  const overrides = Object.entries(composition.desired.images);
  const forkOf = (deployments: Deployment[], component: string) =>
    deployments.find((d) => d.metadata.labels?.[Label.Component] === component);
  const complete = (deployments: Deployment[]) =>
    overrides.every(([component, image]) =>
      rolledOut(
        forkOf(deployments, component),
        image.image,
        (profiles[component] as ComponentProfile).workload.container,
      ),
    );

  const now = deps.clock.now();
  const pendingGrace = Object.values(operation.observations.bad_since).map(
    (bad) => deps.settings.failureGraceMs - (now.getTime() - Date.parse(bad.since)),
  );
  const bound = Math.max(50, Math.min(deps.settings.watchBoundMs, ...pendingGrace.map((ms) => ms + 50)));
  const selector = compositionSelector(composition.id);
  const deployments = overrides.length
    ? await deps.cluster.watchDeployments(composition.namespace, selector, complete, bound)
    : [];

  if (complete(deployments)) {
    await context.fence();
    const anchorObject = await deps.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: composition.namespace,
      name: anchorName(composition.id),
    });
    if (!anchorObject)
      return fail(
        'anchor_missing',
        `the composition's anchor ConfigMap ${anchorName(composition.id)} disappeared`,
      );
    const owner = ownerReference(anchorObject);
    await Promise.all([
      ...overrides.map(([component]) =>
        deps.cluster.apply(
          meshRoute({
            id: composition.id,
            component,
            profile: profiles[component] as ComponentProfile,
            baseline,
            owner,
          }),
        ),
      ),
      deps.cluster.apply(routeToEntry(composition, baseline, profiles, owner)),
    ]);
    return { kind: 'done' };
  }

  for (const [component] of overrides) {
    const progressing = condition(forkOf(deployments, component) ?? ({} as Deployment), 'Progressing');
    if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
      return fail(
        'progress_deadline_exceeded',
        `fork of "${component}" made no progress: ${progressing.message ?? 'ProgressDeadlineExceeded'}`,
        component,
      );
    }
  }

  const later = deps.clock.now();
  const pods = await deps.cluster.listPods(composition.namespace, selector);
  const badSince: Operation['observations']['bad_since'] = {};
  for (const [component, image] of overrides) {
    const container = (profiles[component] as ComponentProfile).workload.container;
    const reason = pods
      .filter((pod) => pod.metadata.labels?.[Label.Component] === component)
      .flatMap((pod) => pod.status?.containerStatuses ?? [])
      .filter((status) => status.name === container)
      .map((status) => status.state?.waiting?.reason)
      .find((r): r is string => r !== undefined && r in waitingReasons);
    if (!reason) continue;
    const since = operation.observations.bad_since[component]?.since ?? later.toISOString();
    badSince[component] = { reason, since };
    if (later.getTime() - Date.parse(since) >= deps.settings.failureGraceMs) {
      const code = waitingReasons[reason] as string;
      const what =
        code === 'crash_loop' ? 'keeps crashing (CrashLoopBackOff)' : `cannot be pulled (${reason})`;
      return fail(code, `image ${image.image} of "${component}" ${what}`, component);
    }
  }
  const ready = overrides.filter(([component, image]) =>
    rolledOut(
      forkOf(deployments, component),
      image.image,
      (profiles[component] as ComponentProfile).workload.container,
    ),
  ).length;
  const progress =
    ready !== operation.observations.ready ? `${ready} of ${overrides.length} forks rolled out` : undefined;
  return {
    kind: 'wait',
    delaySeconds: 0,
    observations: { bad_since: badSince, ready },
    ...(progress ? { progress } : {}),
  };
};

interface Hop {
  component: string;
  image: string;
}

/** Every hop of a local workload's answer (`{ component, image, calls: [{ body }] }`), depth first. */
function hops(body: unknown): Hop[] | null {
  if (typeof body !== 'object' || body === null) return null;
  const node = body as { component?: unknown; image?: unknown; calls?: unknown };
  if (typeof node.component !== 'string' || typeof node.image !== 'string') return null;
  const found: Hop[] = [{ component: node.component, image: node.image }];
  for (const call of Array.isArray(node.calls) ? node.calls : []) {
    found.push(...(hops((call as { body?: unknown })?.body) ?? []));
  }
  return found;
}

/** The routing check: the preview URL must answer, with every overridden component served by its override image. */
const verify: Step = async (context) => {
  const { deps, composition, operation } = context;
  const found = await target(context);
  if ('kind' in found) return found;
  const entry = found.profiles[found.baseline.entry_component] as ComponentProfile;
  const url = new URL(entry.verification.path.replace(/^\//, ''), composition.public_url).toString();
  let check: Omit<CheckRecord, 'fingerprint'> | undefined;
  for (let attempt = 1; attempt <= deps.settings.verifyAttempts; attempt++) {
    check = await routingCheck(deps, composition, operation, url, entry.verification.expect_status);
    if (check.status === CheckStatus.Passed) break;
    if (attempt < deps.settings.verifyAttempts) await new Promise((r) => setTimeout(r, 150 * attempt));
  }
  const print = await fingerprint(deps.cluster, found.catalog, composition).catch(() => ({
    inputs: {},
    hash: 'unreadable',
  }));
  await deps.compositions.putCheck({ ...(check as Omit<CheckRecord, 'fingerprint'>), fingerprint: print });
  return { kind: 'done' };
};

async function routingCheck(
  deps: WorkerDeps,
  composition: CompositionRecord,
  operation: Operation,
  url: string,
  expectStatus: number,
): Promise<Omit<CheckRecord, 'fingerprint'>> {
  const base = {
    id: newId(IdPrefix.Check),
    composition_id: composition.id,
    kind: CheckKind.Routing,
    generation: operation.generation,
    ran_at: deps.clock.now().toISOString(),
    target: url,
  };
  const result = await deps.probe(url);
  const overridden = Object.entries(composition.desired.images);
  if (result.status === null) {
    return {
      ...base,
      status: CheckStatus.Failed,
      message: `the preview URL did not answer: ${result.error}`,
      http_status: null,
      coverage: Object.fromEntries(overridden.map(([c]) => [c, Coverage.Unknown])),
    };
  }
  const seen = hops(result.body);
  const coverage = Object.fromEntries(
    overridden.map(([component, image]) => {
      if (seen === null) return [component, Coverage.Unknown];
      const images = seen.filter((h) => h.component === component).map((h) => h.image);
      if (images.length === 0) return [component, Coverage.NotReached];
      return [component, images.every((i) => i === image.image) ? Coverage.Verified : Coverage.Mismatch];
    }),
  );
  const values = Object.values(coverage);
  if (result.status !== expectStatus) {
    return {
      ...base,
      status: CheckStatus.Failed,
      message: `the preview URL answered ${result.status}, expected ${expectStatus}`,
      http_status: result.status,
      coverage,
    };
  }
  if (values.includes(Coverage.Mismatch)) {
    const wrong = Object.entries(coverage)
      .filter(([, v]) => v === Coverage.Mismatch)
      .map(([c]) => c);
    return {
      ...base,
      status: CheckStatus.Failed,
      message: `not served by the override image: ${wrong.join(', ')}`,
      http_status: result.status,
      coverage,
    };
  }
  if (values.every((v) => v === Coverage.Verified)) {
    return {
      ...base,
      status: CheckStatus.Passed,
      message: overridden.length
        ? 'every overridden component answered with its override image'
        : 'the preview URL answered',
      http_status: result.status,
      coverage,
    };
  }
  const open = Object.entries(coverage)
    .filter(([, v]) => v !== Coverage.Verified)
    .map(([c, v]) => `${c} (${v})`);
  return {
    ...base,
    status: CheckStatus.Unknown,
    message: `the preview URL answered, but these overrides are not proven: ${open.join(', ')}`,
    http_status: result.status,
    coverage,
  };
}

/** Create and update end here: ready, with what is observed now. */
const finishRollout: Step = async (context) => {
  const { deps, composition, operation } = context;
  const found = await target(context);
  if ('kind' in found) return found;
  const isolation = await isolate(deps, composition, found.baseline, found.profiles);
  const forks = await deps.cluster.listDeployments(
    composition.namespace,
    compositionSelector(composition.id),
  );
  const now = deps.clock.now().toISOString();
  const components = Object.fromEntries(
    Object.keys(composition.desired.images).map((component) => {
      const fork = forks.find((d) => d.metadata.labels?.[Label.Component] === component);
      const image = composition.desired.images[component]?.image as string;
      const replicas = fork?.spec.replicas ?? 1;
      return [
        component,
        {
          image,
          ready: (fork?.status?.availableReplicas ?? 0) >= replicas,
          generation: operation.generation,
        },
      ];
    }),
  );
  const latest = (await deps.compositions.listChecks(composition.id, { limit: 1, after: null })).items[0];
  return {
    kind: 'done',
    composition: {
      ...composition,
      phase: Phase.Ready,
      observed_generation: operation.generation,
      observed: { components, blockers: [], updated_at: now },
      public_ready: latest?.generation === operation.generation ? latest.status !== CheckStatus.Failed : true,
      message_subscriptions: composition.message_isolation ? isolation.subscriptions : null,
    },
  };
};

/** Destroy: delete the anchor (owner-reference garbage collection removes the rest) and the isolated queues. */
const remove: Step = async (context) => {
  const { deps, composition } = context;
  if (composition.message_isolation) {
    const catalog = await deps.catalog.readVersion(
      composition.project,
      composition.desired.catalog_version_id,
    );
    await deps.messaging.removeIsolatedQueues({
      prefix: isolatedQueuePrefix(composition.id),
      topics: catalog?.baselines[composition.baseline]?.spec.messaging?.topics ?? [],
    });
  }
  await deps.cluster.delete(
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: composition.namespace,
      name: anchorName(composition.id),
    },
    'Background',
  );
  return { kind: 'done' };
};

/** Confirms nothing labelled with the composition remains, deleting any straggler (a late write of a superseded step). */
const awaitDeletion: Step = async (context) => {
  const { deps, composition } = context;
  const deadline = Date.now() + deps.settings.watchBoundMs;
  const selector = compositionSelector(composition.id);
  for (let round = 0; ; round++) {
    const remaining = await deps.cluster.list(composition.namespace, CompositionKinds, selector);
    if (remaining.length === 0) return { kind: 'done' };
    if (round > 0) {
      await Promise.all(
        remaining
          .filter((o) => !o.metadata.deletionTimestamp && o.kind !== 'Pod' && o.kind !== 'ReplicaSet')
          .map((o) => deps.cluster.delete(refOf(o))),
      );
    }
    if (Date.now() >= deadline) {
      return { kind: 'wait', delaySeconds: 1, observations: context.operation.observations };
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** round, 500)));
  }
};

const finishDestroy: Step = async (context) => {
  const now = context.deps.clock.now().toISOString();
  return {
    kind: 'done',
    composition: {
      ...context.composition,
      phase: Phase.Destroyed,
      destroyed_at: now,
      public_ready: false,
      observed: { components: {}, blockers: [], updated_at: now },
    },
  };
};

const finish: Step = (context) =>
  context.operation.kind === 'destroy' ? finishDestroy(context) : finishRollout(context);

export const steps: Record<string, Step> = {
  apply,
  'await-rollout': awaitRollout,
  verify,
  finish,
  delete: remove,
  'await-deletion': awaitDeletion,
};
