// The fake kubelet: runs virtual containers (no process, no socket). Each pod gets an IP and
// becomes Ready after the configured delay, unless its image says otherwise: `-missing` never pulls
// (ErrImagePull ⇄ ImagePullBackOff), `-crash` crash-loops, `-slow` is Ready after 30 s.

import { createHash, randomUUID } from 'node:crypto';
import { metaTime } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import type { ResourceType } from '../api/registry.ts';
import type { StoreEvent } from '../api/store.ts';
import type { Condition, ContainerState, ContainerStatus, Pod, PodStatus } from '../api/types.ts';
import type { EventRecorder } from './events.ts';
import { ImageBehaviour, imageBehaviour } from './image-rules.ts';
import type { PodLogs } from './pod-logs.ts';

export interface KubeletOptions {
  podReadyDelayMs: number;
  slowReadyMs: number;
  crashBackoffMs: number;
  imagePullBackoffMs: number;
  isFrozen: (pod: Pod) => boolean;
}

interface ContainerRuntime {
  name: string;
  image: string;
  behaviour: ImageBehaviour;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  started: boolean;
  everStarted: boolean;
  restartCount: number;
  containerID: string | undefined;
  failures: number;
}

interface PodRuntime {
  uid: string;
  namespace: string;
  name: string;
  containers: ContainerRuntime[];
  timers: Set<NodeJS.Timeout>;
  parked: (() => void)[];
  podIP: string | undefined;
  startTime: string | undefined;
}

const MANAGER = 'kubelet';
const MAX_BACKOFF_FACTOR = 30;

export const COMPONENT_LABEL = 'app.kubernetes.io/name';

function componentOf(pod: Pod): string {
  return pod.metadata.labels?.[COMPONENT_LABEL] ?? pod.metadata.name ?? 'workload';
}

function portOf(pod: Pod): number {
  return pod.spec.containers[0]?.ports?.[0]?.containerPort ?? 8080;
}

export class Kubelet {
  private readonly api: Api;
  private readonly logs: PodLogs;
  private readonly events: EventRecorder;
  private readonly options: KubeletOptions;
  private readonly pods = new Map<string, PodRuntime>();
  private readonly usedIPs = new Set<string>();
  private nextIP = 2;
  private readonly podsRt: ResourceType;
  private readonly unsubscribe: () => void;

  constructor(api: Api, logs: PodLogs, events: EventRecorder, options: KubeletOptions) {
    this.api = api;
    this.logs = logs;
    this.events = events;
    this.options = options;
    this.podsRt = api.rt('', 'pods');
    for (const pod of api.store.list(this.podsRt) as Pod[]) {
      if (pod.status?.podIP) this.usedIPs.add(pod.status.podIP);
    }
    this.unsubscribe = api.store.subscribe((event) => this.onEvent(event));
    for (const pod of api.store.list(this.podsRt) as Pod[]) this.admit(pod);
  }

  private onEvent(event: StoreEvent): void {
    if (event.rt.group !== '' || event.rt.resource !== 'pods') return;
    const pod = event.object as Pod;
    const uid = pod.metadata.uid ?? '';
    if (event.type === 'DELETED') {
      this.teardown(uid);
      return;
    }
    if (!this.pods.has(uid)) setImmediate(() => this.admit(pod));
  }

  private admit(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    if (this.pods.has(uid)) return;
    const latest = this.api.tryGet(this.podsRt, pod.metadata.namespace, pod.metadata.name ?? '') as
      | Pod
      | undefined;
    if (!latest || latest.metadata.uid !== uid || latest.metadata.deletionTimestamp) return;
    const phase = latest.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const runtime: PodRuntime = {
      uid,
      namespace: latest.metadata.namespace ?? 'default',
      name: latest.metadata.name ?? '',
      containers: latest.spec.containers.map((c) => ({
        name: c.name,
        image: c.image ?? '',
        behaviour: imageBehaviour(c.image ?? ''),
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: {},
        ready: false,
        started: false,
        everStarted: false,
        restartCount: 0,
        containerID: undefined,
        failures: 0,
      })),
      timers: new Set(),
      parked: [],
      podIP: latest.status?.podIP,
      startTime: latest.status?.startTime,
    };
    this.pods.set(uid, runtime);
    if (this.resume(runtime, latest)) return;
    this.events.record(
      this.podsRt,
      latest,
      'Normal',
      'Scheduled',
      `Successfully assigned ${runtime.namespace}/${runtime.name} to ${latest.spec.nodeName ?? 'local-node'}`,
      'default-scheduler',
    );
    this.step(runtime, () => this.createSandbox(runtime));
  }

  /** A pod restored from disk that was running keeps running, as a node that rebooted its containers. */
  private resume(runtime: PodRuntime, pod: Pod): boolean {
    const statuses = pod.status?.containerStatuses ?? [];
    if (pod.status?.phase !== 'Running' || statuses.length === 0 || !statuses.every((s) => s.ready))
      return false;
    for (const c of runtime.containers) {
      const s = statuses.find((x) => x.name === c.name);
      c.state = s?.state ?? { running: { startedAt: metaTime() } };
      c.lastState = s?.lastState ?? {};
      c.ready = true;
      c.started = true;
      c.everStarted = true;
      c.restartCount = s?.restartCount ?? 0;
      c.containerID = s?.containerID;
      this.logs.start(runtime.uid, c.name);
      this.logs.write(
        runtime.uid,
        c.name,
        `resumed ${componentOf(pod)} after a cluster restart (image ${c.image})`,
      );
    }
    return true;
  }

  /** Runs `fn` now, or when the pod's workload is unfrozen. */
  private step(runtime: PodRuntime, fn: () => void): void {
    const pod = this.currentPod(runtime);
    if (!pod) return;
    if (this.options.isFrozen(pod)) runtime.parked.push(fn);
    else fn();
  }

  private later(runtime: PodRuntime, ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      runtime.timers.delete(timer);
      if (this.pods.get(runtime.uid) === runtime) this.step(runtime, fn);
    }, ms);
    timer.unref();
    runtime.timers.add(timer);
  }

  /** Re-runs steps held back by a freeze that has been lifted. */
  resync(): void {
    for (const runtime of this.pods.values()) {
      const pod = this.currentPod(runtime);
      if (!pod || this.options.isFrozen(pod)) continue;
      const parked = runtime.parked.splice(0);
      for (const fn of parked) fn();
    }
  }

  private currentPod(runtime: PodRuntime): Pod | undefined {
    const pod = this.api.tryGet(this.podsRt, runtime.namespace, runtime.name) as Pod | undefined;
    return pod && pod.metadata.uid === runtime.uid ? pod : undefined;
  }

  private allocateIP(): string {
    for (;;) {
      const n = this.nextIP++;
      const ip = `10.244.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
      if (!this.usedIPs.has(ip)) {
        this.usedIPs.add(ip);
        return ip;
      }
    }
  }

  private createSandbox(runtime: PodRuntime): void {
    runtime.podIP ??= this.allocateIP();
    runtime.startTime ??= metaTime();
    this.writeStatus(runtime);
    for (const c of runtime.containers) {
      this.logs.waiting(runtime.uid, c.name, 'ContainerCreating');
      this.later(runtime, this.options.podReadyDelayMs, () => this.pull(runtime, c));
    }
  }

  private record(
    runtime: PodRuntime,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    container?: string,
  ): void {
    const pod = this.currentPod(runtime);
    if (pod)
      this.events.record(
        this.podsRt,
        pod,
        type,
        reason,
        message,
        MANAGER,
        container ? `spec.containers{${container}}` : undefined,
      );
  }

  private pull(runtime: PodRuntime, c: ContainerRuntime): void {
    if (c.behaviour !== ImageBehaviour.missing) {
      if (c.failures === 0 && c.restartCount === 0) {
        this.record(
          runtime,
          'Normal',
          'Pulled',
          `Container image "${c.image}" already present on machine`,
          c.name,
        );
      }
      this.startContainer(runtime, c);
      return;
    }
    c.failures++;
    const reason = `failed to pull and unpack image "${c.image}": failed to resolve reference "${c.image}": not found`;
    this.record(runtime, 'Normal', 'Pulling', `Pulling image "${c.image}"`, c.name);
    this.record(
      runtime,
      'Warning',
      'Failed',
      `Failed to pull image "${c.image}": rpc error: code = NotFound desc = ${reason}`,
      c.name,
    );
    this.record(runtime, 'Warning', 'Failed', 'Error: ErrImagePull', c.name);
    c.state = { waiting: { reason: 'ErrImagePull', message: `rpc error: code = NotFound desc = ${reason}` } };
    this.logs.waiting(runtime.uid, c.name, 'trying and failing to pull image');
    this.writeStatus(runtime);
    this.later(runtime, Math.max(1, this.options.podReadyDelayMs), () => {
      c.state = { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image}"` } };
      this.record(runtime, 'Normal', 'BackOff', `Back-off pulling image "${c.image}"`, c.name);
      this.record(runtime, 'Warning', 'Failed', 'Error: ImagePullBackOff', c.name);
      this.writeStatus(runtime);
      this.later(runtime, this.backoff(this.options.imagePullBackoffMs, c.failures), () =>
        this.pull(runtime, c),
      );
    });
  }

  private backoff(base: number, failures: number): number {
    return Math.min(base * MAX_BACKOFF_FACTOR, base * 2 ** Math.max(0, failures - 1));
  }

  private startContainer(runtime: PodRuntime, c: ContainerRuntime): void {
    const pod = this.currentPod(runtime);
    if (!pod) return;
    c.containerID = `containerd://${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}`;
    c.state = { running: { startedAt: metaTime() } };
    c.started = true;
    c.everStarted = true;
    this.record(runtime, 'Normal', 'Created', `Created container: ${c.name}`, c.name);
    this.record(runtime, 'Normal', 'Started', `Started container ${c.name}`, c.name);
    this.logs.start(runtime.uid, c.name);
    const component = componentOf(pod);
    this.logs.write(runtime.uid, c.name, `starting ${component} (image ${c.image}, pod ${runtime.name})`);
    this.logs.write(runtime.uid, c.name, `listening on :${portOf(pod)}`);
    switch (c.behaviour) {
      case ImageBehaviour.crash:
        c.ready = false;
        this.writeStatus(runtime);
        this.later(runtime, Math.max(1, this.options.podReadyDelayMs), () => this.crash(runtime, c));
        return;
      case ImageBehaviour.slow:
        c.ready = false;
        this.writeStatus(runtime);
        this.later(runtime, Math.max(0, this.options.slowReadyMs - this.options.podReadyDelayMs), () => {
          c.ready = true;
          this.logs.write(runtime.uid, c.name, 'ready');
          this.writeStatus(runtime);
        });
        return;
      default:
        c.ready = true;
        this.logs.write(runtime.uid, c.name, 'ready');
        this.writeStatus(runtime);
    }
  }

  private crash(runtime: PodRuntime, c: ContainerRuntime): void {
    const pod = this.currentPod(runtime);
    if (!pod) return;
    this.logs.write(
      runtime.uid,
      c.name,
      `panic: ${componentOf(pod)} cannot start: configuration check failed (image ${c.image})`,
    );
    this.logs.write(runtime.uid, c.name, 'exit status 1');
    this.logs.stop(runtime.uid, c.name);
    c.failures++;
    c.lastState = {
      terminated: {
        exitCode: 1,
        reason: 'Error',
        startedAt: c.state.running?.startedAt ?? metaTime(),
        finishedAt: metaTime(),
        ...(c.containerID ? { containerID: c.containerID } : {}),
      },
    };
    c.ready = false;
    c.started = false;
    const restart = (): void => {
      c.restartCount++;
      this.startContainer(runtime, c);
    };
    if (c.failures === 1) {
      // The kubelet restarts a container that failed once straight away; back-off starts with the second failure.
      restart();
      return;
    }
    const delay = this.backoff(this.options.crashBackoffMs, c.failures - 1);
    const message = `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${runtime.name}_${runtime.namespace}(${runtime.uid})`;
    c.state = { waiting: { reason: 'CrashLoopBackOff', message } };
    this.record(
      runtime,
      'Warning',
      'BackOff',
      `Back-off restarting failed container ${c.name} in pod ${runtime.name}_${runtime.namespace}(${runtime.uid})`,
      c.name,
    );
    this.writeStatus(runtime);
    this.later(runtime, delay, restart);
  }

  private writeStatus(runtime: PodRuntime): void {
    const pod = this.currentPod(runtime);
    if (!pod) return;
    const now = metaTime();
    const allReady = runtime.containers.every((c) => c.ready);
    const notReady = runtime.containers.filter((c) => !c.ready).map((c) => c.name);
    const everyStarted = runtime.containers.every((c) => c.everStarted);
    const previous = pod.status?.conditions ?? [];
    const condition = (type: string, ok: boolean, reason?: string, message?: string): Condition => {
      const status = ok ? 'True' : 'False';
      const before = previous.find((p) => p.type === type);
      return {
        type,
        status,
        lastProbeTime: null,
        lastTransitionTime: before && before.status === status ? (before.lastTransitionTime ?? now) : now,
        ...(reason ? { reason } : {}),
        ...(message ? { message } : {}),
      };
    };
    const unready = `containers with unready status: [${notReady.join(' ')}]`;
    const containerStatuses: ContainerStatus[] = runtime.containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: c.everStarted
        ? `${c.image.split('@')[0]?.split(':')[0] ?? c.image}@sha256:${createHash('sha256').update(c.image).digest('hex')}`
        : '',
      ...(c.containerID ? { containerID: c.containerID } : {}),
      ready: c.ready,
      started: c.started,
      restartCount: c.restartCount,
      state: c.state,
      lastState: c.lastState,
    }));
    const status: PodStatus = {
      phase: everyStarted ? 'Running' : 'Pending',
      conditions: [
        condition('PodReadyToStartContainers', true),
        condition('Initialized', true),
        condition(
          'Ready',
          allReady,
          allReady ? undefined : 'ContainersNotReady',
          allReady ? undefined : unready,
        ),
        condition(
          'ContainersReady',
          allReady,
          allReady ? undefined : 'ContainersNotReady',
          allReady ? undefined : unready,
        ),
        condition('PodScheduled', true),
      ],
      hostIP: '127.0.0.1',
      hostIPs: [{ ip: '127.0.0.1' }],
      ...(runtime.podIP ? { podIP: runtime.podIP, podIPs: [{ ip: runtime.podIP }] } : {}),
      ...(runtime.startTime ? { startTime: runtime.startTime } : {}),
      containerStatuses,
      qosClass: 'BestEffort',
    };
    this.api.writeStatus(this.podsRt, pod, status, MANAGER);
  }

  /** Appends a line to a running pod's first container log (the virtual workload's request log). */
  writeLog(pod: Pod, text: string): void {
    const first = pod.spec.containers[0]?.name;
    if (first) this.logs.write(pod.metadata.uid ?? '', first, text);
  }

  private teardown(uid: string): void {
    const runtime = this.pods.get(uid);
    if (runtime) {
      for (const t of runtime.timers) clearTimeout(t);
      this.pods.delete(uid);
      if (runtime.podIP) this.usedIPs.delete(runtime.podIP);
    }
    this.logs.remove(uid);
    this.events.forget(uid);
  }

  stop(): void {
    this.unsubscribe();
    for (const runtime of this.pods.values()) for (const t of runtime.timers) clearTimeout(t);
    this.pods.clear();
  }
}
