// Log lines of virtual containers: the current instance and the previous one (after a restart),
// served by the pod log endpoint with kubectl's parameters.

import { badRequest } from '../api/errors.ts';
import type { PodLogRequest, PodLogSource } from '../api/http-server/context.ts';
import type { Pod } from '../api/types.ts';

interface LogLine {
  ms: number;
  /** Nanoseconds within the millisecond, so lines written in the same millisecond keep their order. */
  seq: number;
  text: string;
}

interface Instance {
  lines: LogLine[];
  followers: Set<{ write: (line: LogLine) => void; end: () => void }>;
  ended: boolean;
}

interface ContainerLogs {
  current: Instance | undefined;
  previous: Instance | undefined;
  waitingReason: string | undefined;
}

const MAX_LINES = 10_000;

function newInstance(): Instance {
  return { lines: [], followers: new Set(), ended: false };
}

function rfc3339Nano(line: { ms: number; seq: number }): string {
  const iso = new Date(line.ms).toISOString();
  const frac = `${iso.slice(20, 23)}${String(line.seq).padStart(6, '0')}`;
  return `${iso.slice(0, 19)}.${frac}Z`;
}

export class PodLogs implements PodLogSource {
  private readonly pods = new Map<string, Map<string, ContainerLogs>>();
  private lastMs = 0;
  private seq = 0;

  private container(uid: string, name: string): ContainerLogs {
    let pod = this.pods.get(uid);
    if (!pod) {
      pod = new Map();
      this.pods.set(uid, pod);
    }
    let c = pod.get(name);
    if (!c) {
      c = { current: undefined, previous: undefined, waitingReason: 'ContainerCreating' };
      pod.set(name, c);
    }
    return c;
  }

  /** A new container instance starts; the one before becomes `previous`. */
  start(uid: string, name: string): void {
    const c = this.container(uid, name);
    if (c.current) {
      this.finish(c.current);
      c.previous = c.current;
    }
    c.current = newInstance();
    c.waitingReason = undefined;
  }

  /** The container is not running and has no instance to show (being created, image not pulled). */
  waiting(uid: string, name: string, reason: string): void {
    const c = this.container(uid, name);
    if (!c.current) c.waitingReason = reason;
  }

  stop(uid: string, name: string): void {
    const c = this.container(uid, name);
    if (c.current) this.finish(c.current);
  }

  write(uid: string, name: string, text: string): void {
    const instance = this.pods.get(uid)?.get(name)?.current;
    if (!instance || instance.ended) return;
    const ms = Date.now();
    if (ms === this.lastMs) this.seq++;
    else {
      this.lastMs = ms;
      this.seq = 0;
    }
    const line = { ms, seq: this.seq, text };
    instance.lines.push(line);
    if (instance.lines.length > MAX_LINES) instance.lines.splice(0, instance.lines.length - MAX_LINES);
    for (const f of instance.followers) f.write(line);
  }

  remove(uid: string): void {
    const pod = this.pods.get(uid);
    if (!pod) return;
    for (const c of pod.values()) {
      if (c.current) this.finish(c.current);
      if (c.previous) this.finish(c.previous);
    }
    this.pods.delete(uid);
  }

  private finish(instance: Instance): void {
    if (instance.ended) return;
    instance.ended = true;
    for (const f of instance.followers) f.end();
    instance.followers.clear();
  }

  private instanceFor(pod: Pod, request: PodLogRequest): { instance: Instance; container: string } {
    const names = pod.spec.containers.map((c) => c.name);
    const podName = pod.metadata.name ?? '';
    let container = request.container;
    if (container === undefined || container === '') {
      if (names.length !== 1) {
        throw badRequest(
          `a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]`,
        );
      }
      container = names[0] ?? '';
    }
    if (!names.includes(container))
      throw badRequest(`container ${container} is not valid for pod ${podName}`);
    const c = this.pods.get(pod.metadata.uid ?? '')?.get(container);
    if (request.previous) {
      if (!c?.previous)
        throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
      return { instance: c.previous, container };
    }
    if (!c?.current) {
      throw badRequest(
        `container "${container}" in pod "${podName}" is waiting to start: ${c?.waitingReason ?? 'ContainerCreating'}`,
      );
    }
    return { instance: c.current, container };
  }

  private format(line: LogLine, timestamps: boolean): string {
    return timestamps ? `${rfc3339Nano(line)} ${line.text}\n` : `${line.text}\n`;
  }

  read(pod: Pod, request: PodLogRequest): string {
    const { instance } = this.instanceFor(pod, request);
    let lines = instance.lines;
    if (request.sinceSeconds !== undefined) {
      if (request.sinceSeconds <= 0) throw badRequest('sinceSeconds: Invalid value: must be greater than 0');
      const cutoff = Date.now() - request.sinceSeconds * 1000;
      lines = lines.filter((l) => l.ms >= cutoff);
    } else if (request.sinceTime !== undefined) {
      const cutoff = Date.parse(request.sinceTime);
      if (!Number.isFinite(cutoff)) throw badRequest(`sinceTime: Invalid value: "${request.sinceTime}"`);
      lines = lines.filter((l) => l.ms >= cutoff);
    }
    if (request.tailLines !== undefined) {
      if (request.tailLines < 0)
        throw badRequest('tailLines: Invalid value: must be greater than or equal to 0');
      lines = request.tailLines === 0 ? [] : lines.slice(-request.tailLines);
    }
    let text = lines.map((l) => this.format(l, request.timestamps)).join('');
    if (request.limitBytes !== undefined) {
      if (request.limitBytes <= 0) throw badRequest('limitBytes: Invalid value: must be greater than 0');
      const buf = Buffer.from(text);
      if (buf.length > request.limitBytes) text = buf.subarray(0, request.limitBytes).toString('utf8');
    }
    return text;
  }

  follow(pod: Pod, request: PodLogRequest, write: (text: string) => void, end: () => void): () => void {
    const { instance } = this.instanceFor(pod, request);
    if (instance.ended || request.previous) {
      end();
      return () => {};
    }
    const follower = { write: (line: LogLine) => write(this.format(line, request.timestamps)), end };
    instance.followers.add(follower);
    return () => instance.followers.delete(follower);
  }
}
