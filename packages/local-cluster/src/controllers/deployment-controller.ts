// Deployment controller: one ReplicaSet per pod template (named by the template's hash), rolling
// updates within maxSurge / maxUnavailable (or Recreate), revision history, and status with the
// Available / Progressing conditions `kubectl rollout status` reads, including
// ProgressDeadlineExceeded after progressDeadlineSeconds without progress.

import { clone, deepEqual, fnv1a, metaTime, safeEncode, stableStringify } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import { requirementsOf, selectorMatches } from '../api/selectors.ts';
import type { StoreEvent } from '../api/store.ts';
import type { Condition, Deployment, DeploymentStatus, PodTemplateSpec, ReplicaSet } from '../api/types.ts';
import type { EventRecorder } from './events.ts';
import { controllerRef, nsKey, omitZero, ownerRefTo, splitKey } from './owners.ts';
import { WorkQueue } from './work-queue.ts';

const MANAGER = 'kube-controller-manager';
const COMPONENT = 'deployment-controller';
const HASH_LABEL = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';
const DESIRED = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';

function resolveIntOrPercent(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.endsWith('%')) {
    const pct = Number(value.slice(0, -1));
    const exact = (total * pct) / 100;
    return roundUp ? Math.ceil(exact) : Math.floor(exact);
  }
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return 0;
}

function rollingParameters(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = d.spec.replicas ?? 1;
  if (d.spec.strategy?.type === 'Recreate') return { maxSurge: 0, maxUnavailable: 0 };
  const ru = d.spec.strategy?.rollingUpdate;
  const maxSurge = resolveIntOrPercent(ru?.maxSurge ?? '25%', replicas, true);
  let maxUnavailable = resolveIntOrPercent(ru?.maxUnavailable ?? '25%', replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable: Math.min(maxUnavailable, replicas) };
}

function podTemplateHash(template: PodTemplateSpec, collisionCount: number | undefined): string {
  return safeEncode(fnv1a(stableStringify(template) + (collisionCount ? String(collisionCount) : '')));
}

function withoutHashLabel(template: PodTemplateSpec): PodTemplateSpec {
  const t = clone(template);
  if (t.metadata?.labels) {
    delete t.metadata.labels[HASH_LABEL];
    if (Object.keys(t.metadata.labels).length === 0) delete t.metadata.labels;
  }
  return t;
}

function revisionOf(rs: ReplicaSet): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? 0) || 0;
}

function byAge(a: ReplicaSet, b: ReplicaSet): number {
  const d = (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '');
  return d !== 0 ? d : (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

function setCondition(conditions: Condition[], next: Condition): Condition[] {
  const current = conditions.find((c) => c.type === next.type);
  if (current && current.status === next.status && current.reason === next.reason) return conditions;
  const keepTransition = current && current.status === next.status ? current.lastTransitionTime : undefined;
  const merged = keepTransition ? { ...next, lastTransitionTime: keepTransition } : next;
  return [...conditions.filter((c) => c.type !== next.type), merged];
}

export class DeploymentController {
  private readonly api: Api;
  private readonly events: EventRecorder;
  private readonly queue: WorkQueue;
  private readonly deployRt: ResourceType;
  private readonly rsRt: ResourceType;
  private readonly unsubscribe: () => void;

  constructor(api: Api, events: EventRecorder) {
    this.api = api;
    this.events = events;
    this.deployRt = api.rt('apps', 'deployments');
    this.rsRt = api.rt('apps', 'replicasets');
    this.queue = new WorkQueue('deployment', (key) => this.sync(key));
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
    for (const d of api.store.list(this.deployRt)) this.queue.add(nsKey(d));
  }

  private onEvent(e: StoreEvent): void {
    if (e.rt.group !== 'apps') return;
    if (e.rt.resource === 'deployments') {
      this.queue.add(nsKey(e.object));
      return;
    }
    if (e.rt.resource !== 'replicasets') return;
    for (const rs of [e.object, e.previous]) {
      if (!rs) continue;
      const ref = controllerRef(rs);
      if (ref?.kind === 'Deployment') this.queue.add(`${rs.metadata.namespace}/${ref.name}`);
      else if (!ref && e.type !== 'DELETED') {
        for (const d of this.api.store.list(this.deployRt, rs.metadata.namespace) as Deployment[]) {
          if (selectorMatches(d.spec.selector, rs.metadata.labels)) this.queue.add(nsKey(d));
        }
      }
    }
  }

  /**
   * The Deployment's ReplicaSets, adopting orphans its selector matches first. Orphans come from the
   * label index and the owned from the owner index: reading every ReplicaSet of the namespace per
   * sync made a namespace of thousands of previews cost more per rollout the more it held.
   */
  private replicaSets(d: Deployment): ReplicaSet[] {
    const namespace = d.metadata.namespace;
    const selector = requirementsOf(d.spec.selector);
    for (const rs of this.api.store.candidates(this.rsRt, namespace, selector) as ReplicaSet[]) {
      if (
        !controllerRef(rs) &&
        !rs.metadata.deletionTimestamp &&
        selectorMatches(d.spec.selector, rs.metadata.labels)
      ) {
        const next = clone(rs);
        next.metadata.ownerReferences = [
          ...(next.metadata.ownerReferences ?? []),
          ownerRefTo(this.deployRt, d),
        ];
        this.api.update(this.rsRt, namespace, rs.metadata.name ?? '', next, { fieldManager: MANAGER });
      }
    }
    const uid = d.metadata.uid;
    return this.api.store
      .dependents(uid ?? '')
      .filter(
        ({ rt, object }) =>
          rt.group === 'apps' && rt.resource === 'replicasets' && controllerRef(object)?.uid === uid,
      )
      .map(({ object }) => object as ReplicaSet)
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  }

  private scale(d: Deployment, rs: ReplicaSet, replicas: number): ReplicaSet {
    const from = rs.spec.replicas ?? 0;
    if (from === replicas) return rs;
    const next = clone(rs);
    next.spec.replicas = replicas;
    const surge = rollingParameters(d).maxSurge;
    next.metadata.annotations = {
      ...next.metadata.annotations,
      [DESIRED]: String(d.spec.replicas ?? 1),
      [MAX_REPLICAS]: String((d.spec.replicas ?? 1) + surge),
    };
    const updated = this.api.update(this.rsRt, rs.metadata.namespace, rs.metadata.name ?? '', next, {
      fieldManager: MANAGER,
    }) as ReplicaSet;
    const verb = replicas > from ? 'up' : 'down';
    this.events.record(
      this.deployRt,
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${verb} replica set ${rs.metadata.name} from ${from} to ${replicas}`,
      COMPONENT,
    );
    return updated;
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const d = this.api.tryGet(this.deployRt, namespace, name) as Deployment | undefined;
    if (!d || d.metadata.deletionTimestamp) return;
    const owned = this.replicaSets(d);
    const wanted = withoutHashLabel(d.spec.template);
    let newRS = owned.find((rs) => deepEqual(withoutHashLabel(rs.spec.template), wanted));
    let olds = owned.filter((rs) => rs !== newRS).sort(byAge);
    const replicas = d.spec.replicas ?? 1;
    const { maxSurge, maxUnavailable } = rollingParameters(d);
    const status: DeploymentStatus = clone(d.status ?? {});
    let conditions = status.conditions ?? [];

    if (d.spec.paused) {
      conditions = setCondition(
        conditions,
        this.condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'),
      );
      this.writeStatus(d, newRS, olds, conditions, status.collisionCount);
      return;
    }

    const maxOldRevision = Math.max(0, ...olds.map(revisionOf));
    if (!newRS) {
      const oldPods = olds.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
      let initial: number;
      if (d.spec.strategy?.type === 'Recreate') initial = oldPods > 0 ? 0 : replicas;
      else initial = Math.max(0, Math.min(replicas, replicas + maxSurge - oldPods));
      const created = this.createReplicaSet(d, maxOldRevision + 1, initial, maxSurge, status.collisionCount);
      newRS = created.rs;
      if (created.collisionCount !== undefined) status.collisionCount = created.collisionCount;
      if (initial > 0) {
        this.events.record(
          this.deployRt,
          d,
          'Normal',
          'ScalingReplicaSet',
          `Scaled up replica set ${newRS.metadata.name} from 0 to ${initial}`,
          COMPONENT,
        );
      }
      conditions = setCondition(
        conditions,
        this.condition(
          'Progressing',
          'True',
          'NewReplicaSetCreated',
          `Created new replica set "${newRS.metadata.name}"`,
        ),
      );
    } else if (revisionOf(newRS) <= maxOldRevision) {
      const next = clone(newRS);
      next.metadata.annotations = { ...next.metadata.annotations, [REVISION]: String(maxOldRevision + 1) };
      newRS = this.api.update(this.rsRt, namespace, newRS.metadata.name ?? '', next, {
        fieldManager: MANAGER,
      }) as ReplicaSet;
    } else if (!conditions.some((c) => c.type === 'Progressing')) {
      conditions = setCondition(
        conditions,
        this.condition(
          'Progressing',
          'True',
          'FoundNewReplicaSet',
          `Found new replica set "${newRS.metadata.name}"`,
        ),
      );
    }
    this.annotateRevision(d, revisionOf(newRS));

    if (d.spec.strategy?.type === 'Recreate') {
      olds = olds.map((rs) => this.scale(d, rs, 0));
      const oldRunning = olds.some((rs) => (rs.status?.replicas ?? 0) > 0);
      if (!oldRunning) newRS = this.scale(d, newRS, replicas);
    } else {
      newRS = this.reconcileNew(d, newRS, olds, replicas, maxSurge);
      olds = this.reconcileOld(d, newRS, olds, replicas, maxUnavailable);
    }
    this.cleanup(d, olds);
    this.writeStatus(d, newRS, olds, conditions, status.collisionCount);
  }

  private reconcileNew(
    d: Deployment,
    newRS: ReplicaSet,
    olds: ReplicaSet[],
    replicas: number,
    maxSurge: number,
  ): ReplicaSet {
    const current = newRS.spec.replicas ?? 0;
    if (current === replicas) return newRS;
    if (current > replicas) return this.scale(d, newRS, replicas);
    const total = [newRS, ...olds].reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
    const allowed = replicas + maxSurge - total;
    if (allowed <= 0) return newRS;
    return this.scale(d, newRS, current + Math.min(allowed, replicas - current));
  }

  private reconcileOld(
    d: Deployment,
    newRS: ReplicaSet,
    olds: ReplicaSet[],
    replicas: number,
    maxUnavailable: number,
  ): ReplicaSet[] {
    const oldCount = olds.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
    if (oldCount === 0) return olds;
    const all = [newRS, ...olds];
    const allPods = all.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
    const minAvailable = replicas - maxUnavailable;
    const newUnavailable = (newRS.spec.replicas ?? 0) - (newRS.status?.availableReplicas ?? 0);
    let budget = allPods - minAvailable - newUnavailable;
    if (budget <= 0) return olds;
    const out = [...olds];
    // Unhealthy old replicas go first: removing them cannot reduce availability.
    for (let i = 0; i < out.length && budget > 0; i++) {
      const rs = out[i];
      if (!rs) continue;
      const unhealthy = (rs.spec.replicas ?? 0) - (rs.status?.availableReplicas ?? 0);
      if (unhealthy <= 0) continue;
      const down = Math.min(budget, unhealthy);
      out[i] = this.scale(d, rs, (rs.spec.replicas ?? 0) - down);
      budget -= down;
    }
    const available = [newRS, ...out].reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
    let room = Math.min(available - minAvailable, allPods - minAvailable - newUnavailable);
    for (let i = 0; i < out.length && room > 0; i++) {
      const rs = out[i];
      if (!rs || (rs.spec.replicas ?? 0) === 0) continue;
      const down = Math.min(rs.spec.replicas ?? 0, room);
      out[i] = this.scale(d, rs, (rs.spec.replicas ?? 0) - down);
      room -= down;
    }
    return out;
  }

  private createReplicaSet(
    d: Deployment,
    revision: number,
    replicas: number,
    maxSurge: number,
    collisionCount: number | undefined,
  ): { rs: ReplicaSet; collisionCount: number | undefined } {
    let count = collisionCount;
    for (;;) {
      const hash = podTemplateHash(d.spec.template, count);
      const name = `${d.metadata.name}-${hash}`;
      const existing = this.api.tryGet(this.rsRt, d.metadata.namespace, name) as ReplicaSet | undefined;
      if (existing) {
        count = (count ?? 0) + 1;
        continue;
      }
      const template = clone(d.spec.template);
      template.metadata = {
        ...template.metadata,
        labels: { ...template.metadata?.labels, [HASH_LABEL]: hash },
      };
      const selector = clone(d.spec.selector);
      selector.matchLabels = { ...selector.matchLabels, [HASH_LABEL]: hash };
      const rs = this.api.create(
        this.rsRt,
        d.metadata.namespace,
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name,
            namespace: d.metadata.namespace,
            labels: { ...d.spec.template.metadata?.labels, [HASH_LABEL]: hash },
            annotations: {
              [REVISION]: String(revision),
              [DESIRED]: String(d.spec.replicas ?? 1),
              [MAX_REPLICAS]: String((d.spec.replicas ?? 1) + maxSurge),
            },
            ownerReferences: [ownerRefTo(this.deployRt, d)],
          },
          spec: {
            replicas,
            ...(d.spec.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
            selector,
            template,
          },
        },
        { fieldManager: MANAGER },
      ) as ReplicaSet;
      return { rs, collisionCount: count };
    }
  }

  private annotateRevision(d: Deployment, revision: number): void {
    if (d.metadata.annotations?.[REVISION] === String(revision)) return;
    const latest = this.api.tryGet(this.deployRt, d.metadata.namespace, d.metadata.name ?? '');
    if (!latest) return;
    const next = clone(latest);
    next.metadata.annotations = { ...next.metadata.annotations, [REVISION]: String(revision) };
    this.api.update(this.deployRt, d.metadata.namespace, d.metadata.name ?? '', next, {
      fieldManager: MANAGER,
    });
  }

  private cleanup(d: Deployment, olds: ReplicaSet[]): void {
    const limit = d.spec.revisionHistoryLimit ?? 10;
    const idle = olds.filter(
      (rs) =>
        (rs.spec.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp,
    );
    const excess = idle.length - limit;
    for (const rs of idle.sort(byAge).slice(0, Math.max(0, excess))) {
      this.api.delete(this.rsRt, rs.metadata.namespace, rs.metadata.name ?? '');
    }
  }

  private condition(type: string, status: Condition['status'], reason: string, message: string): Condition {
    const now = metaTime();
    return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
  }

  private writeStatus(
    d: Deployment,
    newRS: ReplicaSet | undefined,
    olds: ReplicaSet[],
    baseConditions: Condition[],
    collisionCount: number | undefined,
  ): void {
    const latest = this.api.tryGet(this.deployRt, d.metadata.namespace, d.metadata.name ?? '') as
      | Deployment
      | undefined;
    if (!latest) return;
    const all = newRS ? [newRS, ...olds] : olds;
    const fresh = all.map(
      (rs) =>
        (this.api.tryGet(this.rsRt, rs.metadata.namespace, rs.metadata.name ?? '') as
          | ReplicaSet
          | undefined) ?? rs,
    );
    const freshNew = newRS ? fresh[0] : undefined;
    const replicas = latest.spec.replicas ?? 1;
    const sum = (f: (rs: ReplicaSet) => number | undefined): number =>
      fresh.reduce((n, rs) => n + (f(rs) ?? 0), 0);
    const counts = {
      replicas: sum((rs) => rs.status?.replicas),
      updatedReplicas: freshNew?.status?.replicas ?? 0,
      readyReplicas: sum((rs) => rs.status?.readyReplicas),
      availableReplicas: sum((rs) => rs.status?.availableReplicas),
    };
    const unavailable = Math.max(0, replicas - counts.availableReplicas);
    const { maxUnavailable } = rollingParameters(latest);
    let conditions = baseConditions;
    const available = counts.availableReplicas >= replicas - maxUnavailable;
    conditions = setCondition(
      conditions,
      available
        ? this.condition(
            'Available',
            'True',
            'MinimumReplicasAvailable',
            'Deployment has minimum availability.',
          )
        : this.condition(
            'Available',
            'False',
            'MinimumReplicasUnavailable',
            'Deployment does not have minimum availability.',
          ),
    );
    const observedGeneration = latest.metadata.generation ?? 1;
    if (!latest.spec.paused && freshNew) {
      const rsName = freshNew.metadata.name;
      const before = latest.status ?? {};
      const complete =
        counts.updatedReplicas === replicas &&
        counts.replicas === replicas &&
        counts.availableReplicas === replicas;
      const oldBefore = (before.replicas ?? 0) - (before.updatedReplicas ?? 0);
      const oldNow = counts.replicas - counts.updatedReplicas;
      const progressing =
        counts.updatedReplicas > (before.updatedReplicas ?? 0) ||
        oldNow < oldBefore ||
        counts.readyReplicas > (before.readyReplicas ?? 0) ||
        counts.availableReplicas > (before.availableReplicas ?? 0);
      const current = conditions.find((c) => c.type === 'Progressing');
      if (complete) {
        conditions = setCondition(
          conditions,
          this.condition(
            'Progressing',
            'True',
            'NewReplicaSetAvailable',
            `ReplicaSet "${rsName}" has successfully progressed.`,
          ),
        );
      } else if (progressing) {
        const next = this.condition(
          'Progressing',
          'True',
          'ReplicaSetUpdated',
          `ReplicaSet "${rsName}" is progressing.`,
        );
        if (current?.status === 'True' && current.lastTransitionTime)
          next.lastTransitionTime = current.lastTransitionTime;
        conditions = [...conditions.filter((c) => c.type !== 'Progressing'), next];
      } else if (
        current &&
        current.reason !== 'NewReplicaSetAvailable' &&
        current.reason !== 'ProgressDeadlineExceeded'
      ) {
        const deadlineMs = (latest.spec.progressDeadlineSeconds ?? 600) * 1000;
        const since = Date.parse(current.lastUpdateTime ?? current.lastTransitionTime ?? '') || Date.now();
        const left = since + deadlineMs - Date.now();
        if (left <= 0) {
          conditions = setCondition(
            conditions,
            this.condition(
              'Progressing',
              'False',
              'ProgressDeadlineExceeded',
              `ReplicaSet "${rsName}" has timed out progressing.`,
            ),
          );
          this.events.record(
            this.deployRt,
            latest,
            'Warning',
            'ProgressDeadlineExceeded',
            `Deployment "${latest.metadata.name}" has timed out progressing.`,
            COMPONENT,
          );
        } else {
          // metav1.Time has whole seconds, so wake up just after the second the deadline falls in.
          this.queue.addAfter(nsKey(latest), left + 1000);
        }
      }
      const after = conditions.find((c) => c.type === 'Progressing');
      if (!complete && after?.status === 'True' && after.reason !== 'NewReplicaSetAvailable') {
        const deadlineMs = (latest.spec.progressDeadlineSeconds ?? 600) * 1000;
        const since = Date.parse(after.lastUpdateTime ?? '') || Date.now();
        this.queue.addAfter(nsKey(latest), Math.max(0, since + deadlineMs - Date.now()) + 1000);
      }
    }
    const order = ['Available', 'Progressing', 'ReplicaFailure'];
    conditions = [...conditions].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
    const status: DeploymentStatus = {
      observedGeneration,
      ...omitZero({ ...counts, unavailableReplicas: unavailable }),
      conditions,
      ...(collisionCount ? { collisionCount } : {}),
    };
    this.api.writeStatus(this.deployRt, latest, status, MANAGER);
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
