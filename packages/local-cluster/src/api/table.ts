// Server-side printing: `kubectl get` asks for a meta.k8s.io Table, and columns like READY, STATUS
// and RESTARTS come from here, as they do from a real API server.

import { isObject } from './json.ts';
import type { ResourceType } from './registry.ts';
import type { Deployment, KubeObject, Pod, ReplicaSet, Service } from './types.ts';

interface Column {
  name: string;
  type: 'string' | 'integer' | 'date';
  format?: string;
  priority?: number;
}

type Cell = string | number;

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** True when the Accept header prefers a Table (kubectl get). */
export function wantsTable(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0] ?? '';
  return first.includes('as=Table') && first.includes('g=meta.k8s.io');
}

/** kubectl's human duration: 45s, 3m12s, 47m, 5h3m, 2d4h, 30d, 2y. */
export function humanAge(since: string | undefined, now = Date.now()): string {
  const t = since ? Date.parse(since) : Number.NaN;
  if (!Number.isFinite(t)) return '<unknown>';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (h < 3) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function podStatus(pod: Pod): string {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  for (const c of pod.status?.containerStatuses ?? []) {
    if (c.state.waiting?.reason && c.state.waiting.reason !== 'ContainerCreating')
      return c.state.waiting.reason;
    if (c.state.terminated?.reason) return c.state.terminated.reason;
  }
  const waiting = pod.status?.containerStatuses?.find((c) => c.state.waiting);
  if (waiting?.state.waiting?.reason) return waiting.state.waiting.reason;
  return pod.status?.phase ?? 'Pending';
}

function servicePorts(svc: Service): string {
  const ports = svc.spec.ports ?? [];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',');
}

interface Printer {
  columns: Column[];
  cells: (o: KubeObject) => Cell[];
}

const NAME: Column = { name: 'Name', type: 'string', format: 'name' };
const AGE: Column = { name: 'Age', type: 'string' };

function printer(rt: ResourceType): Printer {
  const age = (o: KubeObject) => humanAge(o.metadata.creationTimestamp);
  const key = `${rt.group}/${rt.resource}`;
  switch (key) {
    case '/pods':
      return {
        columns: [
          NAME,
          { name: 'Ready', type: 'string' },
          { name: 'Status', type: 'string' },
          { name: 'Restarts', type: 'string' },
          AGE,
          { name: 'IP', type: 'string', priority: 1 },
          { name: 'Node', type: 'string', priority: 1 },
        ],
        cells: (o) => {
          const pod = o as Pod;
          const statuses = pod.status?.containerStatuses ?? [];
          const ready = statuses.filter((c) => c.ready).length;
          const restarts = statuses.reduce((n, c) => n + c.restartCount, 0);
          return [
            o.metadata.name ?? '',
            `${ready}/${pod.spec.containers.length}`,
            podStatus(pod),
            String(restarts),
            age(o),
            pod.status?.podIP ?? '<none>',
            pod.spec.nodeName ?? '<none>',
          ];
        },
      };
    case 'apps/deployments':
      return {
        columns: [
          NAME,
          { name: 'Ready', type: 'string' },
          { name: 'Up-to-date', type: 'integer' },
          { name: 'Available', type: 'integer' },
          AGE,
        ],
        cells: (o) => {
          const d = o as Deployment;
          return [
            o.metadata.name ?? '',
            `${d.status?.readyReplicas ?? 0}/${d.spec.replicas ?? 1}`,
            d.status?.updatedReplicas ?? 0,
            d.status?.availableReplicas ?? 0,
            age(o),
          ];
        },
      };
    case 'apps/replicasets':
      return {
        columns: [
          NAME,
          { name: 'Desired', type: 'integer' },
          { name: 'Current', type: 'integer' },
          { name: 'Ready', type: 'integer' },
          AGE,
        ],
        cells: (o) => {
          const rs = o as ReplicaSet;
          return [
            o.metadata.name ?? '',
            rs.spec.replicas ?? 1,
            rs.status?.replicas ?? 0,
            rs.status?.readyReplicas ?? 0,
            age(o),
          ];
        },
      };
    case '/services':
      return {
        columns: [
          NAME,
          { name: 'Type', type: 'string' },
          { name: 'Cluster-IP', type: 'string' },
          { name: 'External-IP', type: 'string' },
          { name: 'Port(s)', type: 'string' },
          AGE,
        ],
        cells: (o) => {
          const svc = o as Service;
          return [
            o.metadata.name ?? '',
            svc.spec.type ?? 'ClusterIP',
            svc.spec.clusterIP ?? '<none>',
            '<none>',
            servicePorts(svc),
            age(o),
          ];
        },
      };
    case '/namespaces':
      return {
        columns: [NAME, { name: 'Status', type: 'string' }, AGE],
        cells: (o) => [
          o.metadata.name ?? '',
          String((isObject(o.status) && o.status.phase) || 'Active'),
          age(o),
        ],
      };
    case '/events':
      return {
        columns: [
          { name: 'Last Seen', type: 'string' },
          { name: 'Type', type: 'string' },
          { name: 'Reason', type: 'string' },
          { name: 'Object', type: 'string' },
          { name: 'Message', type: 'string' },
        ],
        cells: (o) => {
          const involved = isObject(o.involvedObject) ? o.involvedObject : {};
          return [
            humanAge(String(o.lastTimestamp ?? o.metadata.creationTimestamp ?? '')),
            String(o.type ?? ''),
            String(o.reason ?? ''),
            `${String(involved.kind ?? '').toLowerCase()}/${String(involved.name ?? '')}`,
            String(o.message ?? ''),
          ];
        },
      };
    case 'gateway.networking.k8s.io/httproutes':
      return {
        columns: [NAME, { name: 'Hostnames', type: 'string' }, AGE],
        cells: (o) => {
          const hostnames =
            isObject(o.spec) && Array.isArray(o.spec.hostnames) ? (o.spec.hostnames as string[]) : [];
          return [o.metadata.name ?? '', hostnames.length ? JSON.stringify(hostnames) : '', age(o)];
        },
      };
    case 'apiextensions.k8s.io/customresourcedefinitions':
      return {
        columns: [NAME, { name: 'Created At', type: 'date' }],
        cells: (o) => [o.metadata.name ?? '', o.metadata.creationTimestamp ?? ''],
      };
    default:
      return { columns: [NAME, AGE], cells: (o) => [o.metadata.name ?? '', age(o)] };
  }
}

function rowObject(o: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

export function toTable(
  rt: ResourceType,
  items: readonly KubeObject[],
  metadata: Record<string, unknown>,
  include: IncludeObject,
  withColumns = true,
): unknown {
  const p = printer(rt);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    ...(withColumns
      ? {
          columnDefinitions: p.columns.map((c) => ({
            name: c.name,
            type: c.type,
            format: c.format ?? '',
            description: '',
            priority: c.priority ?? 0,
          })),
        }
      : {}),
    rows: items.map((o) => {
      const object = rowObject(o, include);
      return { cells: p.cells(o), ...(object === undefined ? {} : { object }) };
    }),
  };
}

export function includeObjectParam(value: string | null): IncludeObject {
  if (value === 'None' || value === 'Object') return value;
  return 'Metadata';
}
