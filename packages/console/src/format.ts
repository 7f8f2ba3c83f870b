/** Pure presentation rules of the console: durations, reasons, the curl line, the cost of a plan. */
import { Cluster, Compositions } from '@svc/core';

/** `2h 05m`, `4m 09s`, `12s`; `expired` at or past the end. */
export function remaining(until: string, now: Date): string {
  const ms = Date.parse(until) - now.getTime();
  if (ms <= 0) return 'expired';
  return duration(ms);
}

function duration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/** `3m ago`, for timelines. */
export function ago(at: string, now: Date): string {
  const ms = now.getTime() - Date.parse(at);
  return ms < 1000 ? 'just now' : `${duration(ms)} ago`;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A moment as a person reads it, in UTC (the server renders for every reader alike):
 * `26 Nov 14:05 UTC`, with the year when it is not `now`'s.
 */
export function when(at: string, now: Date): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return at;
  const pad = (n: number) => String(n).padStart(2, '0');
  const year = date.getUTCFullYear() === now.getUTCFullYear() ? '' : ` ${date.getUTCFullYear()}`;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
  return `${date.getUTCDate()} ${months[date.getUTCMonth()]}${year} ${time} UTC`;
}

/** A machine state as words: `not_started` → `not started`, `waiting_for_build` → `waiting for build`. */
/** An interval as htmx's `every` reads it and a person does: `3s`, `250ms`. */
export function interval(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

export function readable(state: string): string {
  return state.replaceAll('_', ' ');
}

/** `1 pod`, `2 pods`, `0 pods`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** One sentence on why the composition is in its phase, from what the view records. */
export function phaseReason(view: Compositions.CompositionView, now: Date): string {
  const blocker = view.observed.blockers[0];
  const operation = `${view.latest_operation.kind} operation ${view.latest_operation.id}`;
  switch (view.phase) {
    case Compositions.Phase.Created:
      return `Accepted; the ${operation} has not started yet.`;
    case Compositions.Phase.Provisioning:
    case Compositions.Phase.Updating:
      return `Rolling out generation ${view.generation} (${operation}, ${view.latest_operation.status}).`;
    case Compositions.Phase.Ready:
      return `Generation ${view.observed_generation} is rolled out and every override is ready.`;
    case Compositions.Phase.Failed:
      return blocker
        ? `${blocker.message}${blocker.component ? ` (${blocker.component})` : ''}`
        : `The ${operation} failed.`;
    case Compositions.Phase.Expired:
      return `Its TTL ended at ${when(view.expires_at, now)}; the expiry sweep destroys it next.`;
    case Compositions.Phase.Destroying:
      return `Being torn down (${operation}, ${view.latest_operation.status}).`;
    case Compositions.Phase.Destroyed:
      return 'Torn down; nothing of it is left in the cluster.';
  }
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A curl line that reaches the preview with the routing baggage set, as any hop would propagate it. */
export function curlCommand(url: string, id: string): string {
  return `curl -sS -H ${shellQuote(`baggage: ${Cluster.routingBaggage(id)}`)} ${shellQuote(url)}`;
}

export interface CostEstimate {
  /** CPU cores × hours the overrides reserve over the whole TTL. */
  cpuCoreHours: number;
  /** Memory GiB × hours over the whole TTL. */
  memoryGibHours: number;
  pods: number;
  hours: number;
}

/** What a plan's resource estimate reserves if the preview lives its whole TTL. */
export function costEstimate(
  estimate: Compositions.PlanView['resource_estimate'],
  lifetime: Compositions.PlanView['lifetime'],
  now: Date,
): CostEstimate | null {
  if (!lifetime.expires_at) return null;
  const hours = Math.max(0, (Date.parse(lifetime.expires_at) - now.getTime()) / 3_600_000);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    cpuCoreHours: round((estimate.cpu_millicores / 1000) * hours),
    memoryGibHours: round((estimate.memory_mib / 1024) * hours),
    pods: estimate.pods,
    hours: round(hours),
  };
}

/** A forge owner's subject is `<owner>/<repo>#<number>`: its pull request's page. */
export function pullRequestUrl(subject: string, forgeWebUrl: string): string | null {
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)#(\d+)$/.exec(subject);
  if (!match) return null;
  return `${forgeWebUrl.replace(/\/$/, '')}/${match[1]}/${match[2]}/pull/${match[3]}`;
}
