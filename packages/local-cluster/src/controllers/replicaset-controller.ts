// ReplicaSet controller: keeps `spec.replicas` pods from the template, adopts matching orphans,
// and reports replicas / ready / available in status.

import { clone } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import { requirementsOf, selectorMatches } from '../api/selectors.ts';
import type { StoreEvent } from '../api/store.ts';
import type { Pod, ReplicaSet, ReplicaSetStatus } from '../api/types.ts';
import type { EventRecorder } from './events.ts';
import {
  controllerRef,
  isPodActive,
  isPodReady,
  nsKey,
  omitZero,
  ownerRefTo,
  readySince,
  splitKey,
} from './owners.ts';
import { WorkQueue } from './work-queue.ts';

const MANAGER = 'kube-controller-manager';

/** Which pods go first when scaling down: unscheduled, pending, unready, recently ready, restarting, newest. */
function deletionRank(a: Pod, b: Pod): number {
  const phaseRank = (p: Pod): number =>
    p.status?.phase === 'Pending' ? 0 : p.status?.phase === 'Running' ? 2 : 1;
  const d1 = phaseRank(a) - phaseRank(b);
  if (d1 !== 0) return d1;
  const d2 = Number(isPodReady(a)) - Number(isPodReady(b));
  if (d2 !== 0) return d2;
  const restarts = (p: Pod): number =>
    (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0);
  const d3 = restarts(b) - restarts(a);
  if (d3 !== 0) return d3;
  return (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '');
}

export class ReplicaSetController {
  private readonly api: Api;
  private readonly events: EventRecorder;
  private readonly queue: WorkQueue;
  private readonly rsRt: ResourceType;
  private readonly podsRt: ResourceType;
  private readonly unsubscribe: () => void;

  constructor(api: Api, events: EventRecorder) {
    this.api = api;
    this.events = events;
    this.rsRt = api.rt('apps', 'replicasets');
    this.podsRt = api.rt('', 'pods');
    this.queue = new WorkQueue('replicaset', (key) => this.sync(key));
    this.unsubscribe = api.store.subscribe((e) => this.onEvent(e));
    for (const rs of api.store.list(this.rsRt)) this.queue.add(nsKey(rs));
  }

  private onEvent(e: StoreEvent): void {
    if (e.rt.group === 'apps' && e.rt.resource === 'replicasets') {
      this.queue.add(nsKey(e.object));
      return;
    }
    if (e.rt.group !== '' || e.rt.resource !== 'pods') return;
    for (const pod of [e.object, e.previous]) {
      if (!pod) continue;
      const ref = controllerRef(pod);
      if (ref?.kind === 'ReplicaSet') this.queue.add(`${pod.metadata.namespace}/${ref.name}`);
      else if (!ref && e.type !== 'DELETED') {
        for (const rs of this.api.store.list(this.rsRt, pod.metadata.namespace) as ReplicaSet[]) {
          if (selectorMatches(rs.spec.selector, pod.metadata.labels)) this.queue.add(nsKey(rs));
        }
      }
    }
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const rs = this.api.tryGet(this.rsRt, namespace, name) as ReplicaSet | undefined;
    if (!rs || rs.metadata.deletionTimestamp) return;
    const uid = rs.metadata.uid;
    // Orphans from the label index: every pod of the namespace per sync grew with the previews in it.
    const orphans = this.api.store.candidates(
      this.podsRt,
      namespace,
      requirementsOf(rs.spec.selector),
    ) as Pod[];
    for (const pod of orphans) {
      if (!controllerRef(pod) && isPodActive(pod) && selectorMatches(rs.spec.selector, pod.metadata.labels))
        this.adopt(rs, pod);
    }
    const owned = () =>
      this.api.store
        .dependents(uid ?? '')
        .filter((d) => d.rt.resource === 'pods' && d.rt.group === '' && controllerRef(d.object)?.uid === uid)
        .map((d) => d.object as Pod)
        .filter(isPodActive);
    const active = owned();
    const want = rs.spec.replicas ?? 1;
    if (active.length < want) {
      for (let i = active.length; i < want; i++) this.createPod(rs);
    } else if (active.length > want) {
      const victims = [...active].sort(deletionRank).slice(0, active.length - want);
      for (const pod of victims) {
        this.api.delete(this.podsRt, namespace, pod.metadata.name ?? '');
        this.events.record(
          this.rsRt,
          rs,
          'Normal',
          'SuccessfulDelete',
          `Deleted pod: ${pod.metadata.name}`,
          'replicaset-controller',
        );
      }
    }
    this.updateStatus(rs, owned());
  }

  private adopt(rs: ReplicaSet, pod: Pod): void {
    const next = clone(pod);
    next.metadata.ownerReferences = [...(next.metadata.ownerReferences ?? []), ownerRefTo(this.rsRt, rs)];
    this.api.update(this.podsRt, pod.metadata.namespace, pod.metadata.name ?? '', next, {
      fieldManager: MANAGER,
    });
  }

  private createPod(rs: ReplicaSet): void {
    const template = clone(rs.spec.template);
    const pod = this.api.create(
      this.podsRt,
      rs.metadata.namespace,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          ...template.metadata,
          generateName: `${rs.metadata.name}-`,
          namespace: rs.metadata.namespace,
          ownerReferences: [ownerRefTo(this.rsRt, rs)],
        },
        spec: template.spec,
      },
      { fieldManager: MANAGER },
    );
    this.events.record(
      this.rsRt,
      rs,
      'Normal',
      'SuccessfulCreate',
      `Created pod: ${pod.metadata.name}`,
      'replicaset-controller',
    );
  }

  private updateStatus(rs: ReplicaSet, pods: Pod[]): void {
    const minReady = (rs.spec.minReadySeconds ?? 0) * 1000;
    const now = Date.now();
    let available = 0;
    let nextCheck: number | undefined;
    for (const pod of pods) {
      if (!isPodReady(pod)) continue;
      const since = readySince(pod) ?? now;
      if (minReady === 0 || since + minReady <= now) available++;
      else nextCheck = Math.min(nextCheck ?? Number.POSITIVE_INFINITY, since + minReady - now);
    }
    if (nextCheck !== undefined) this.queue.addAfter(nsKey(rs), nextCheck + 5);
    const templateLabels = Object.entries(rs.spec.template.metadata?.labels ?? {});
    const status: ReplicaSetStatus = {
      replicas: pods.length,
      ...omitZero({
        fullyLabeledReplicas: pods.filter((p) =>
          templateLabels.every(([k, v]) => p.metadata.labels?.[k] === v),
        ).length,
        readyReplicas: pods.filter(isPodReady).length,
        availableReplicas: available,
        observedGeneration: rs.metadata.generation ?? 1,
      }),
    };
    const latest = this.api.tryGet(this.rsRt, rs.metadata.namespace, rs.metadata.name ?? '');
    if (latest) this.api.writeStatus(this.rsRt, latest, status, MANAGER);
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
