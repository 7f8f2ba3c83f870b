// Defaulting and validation for the built-in kinds, the subset a real API server applies that
// clients and controllers observe (replicas, strategy, protocols, imagePullPolicy, target ports).

import { type FieldCause, invalid } from './errors.ts';
import { deepEqual, isObject } from './json.ts';
import { RBAC_GROUP, type ResourceType } from './registry.ts';
import { requirementsOf, selectorMatches } from './selectors.ts';
import type { KubeObject } from './types.ts';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec | undefined {
  return isObject(value) ? value : undefined;
}

function ensure(parent: Rec, key: string): Rec {
  const existing = rec(parent[key]);
  if (existing) return existing;
  const created: Rec = {};
  parent[key] = created;
  return created;
}

function setDefault(target: Rec, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

function imageTag(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(colon + 1) : undefined;
}

function defaultContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list) {
    const container = rec(c);
    if (!container) continue;
    const image = typeof container.image === 'string' ? container.image : '';
    const tag = imageTag(image);
    setDefault(
      container,
      'imagePullPolicy',
      image.includes('@') || (tag !== undefined && tag !== 'latest') ? 'IfNotPresent' : 'Always',
    );
    setDefault(container, 'terminationMessagePath', '/dev/termination-log');
    setDefault(container, 'terminationMessagePolicy', 'File');
    setDefault(container, 'resources', {});
    if (Array.isArray(container.ports))
      for (const p of container.ports) if (rec(p)) setDefault(p as Rec, 'protocol', 'TCP');
  }
}

function defaultPodSpec(spec: Rec): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'securityContext', {});
  defaultContainers(spec.containers);
  defaultContainers(spec.initContainers);
}

function defaultTemplate(spec: Rec): void {
  const template = ensure(spec, 'template');
  ensure(template, 'metadata');
  defaultPodSpec(ensure(template, 'spec'));
}

export function applyDefaults(rt: ResourceType, object: KubeObject): void {
  const o = object as Rec;
  if (rt.group === '' && rt.resource === 'namespaces') {
    object.metadata.labels = {
      ...object.metadata.labels,
      'kubernetes.io/metadata.name': object.metadata.name ?? '',
    };
    const spec = ensure(o, 'spec');
    setDefault(spec, 'finalizers', ['kubernetes']);
  } else if (rt.group === '' && rt.resource === 'pods') {
    defaultPodSpec(ensure(o, 'spec'));
  } else if (rt.group === 'apps' && rt.resource === 'deployments') {
    const spec = ensure(o, 'spec');
    setDefault(spec, 'replicas', 1);
    const strategy = ensure(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const ru = ensure(strategy, 'rollingUpdate');
      setDefault(ru, 'maxSurge', '25%');
      setDefault(ru, 'maxUnavailable', '25%');
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    defaultTemplate(spec);
  } else if (rt.group === 'apps' && rt.resource === 'replicasets') {
    const spec = ensure(o, 'spec');
    setDefault(spec, 'replicas', 1);
    defaultTemplate(spec);
  } else if (rt.group === '' && rt.resource === 'services') {
    const spec = ensure(o, 'spec');
    setDefault(spec, 'type', 'ClusterIP');
    setDefault(spec, 'sessionAffinity', 'None');
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
    setDefault(spec, 'ipFamilies', ['IPv4']);
    setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
    if (Array.isArray(spec.ports)) {
      for (const p of spec.ports) {
        const port = rec(p);
        if (!port) continue;
        setDefault(port, 'protocol', 'TCP');
        setDefault(port, 'targetPort', port.port);
      }
    }
  } else if (rt.group === '' && rt.resource === 'secrets') {
    setDefault(o, 'type', 'Opaque');
    const stringData = rec(o.stringData);
    if (stringData) {
      const data = ensure(o, 'data');
      for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v)).toString('base64');
      delete o.stringData;
    }
  }
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAMES = new Set(['namespaces', 'services']);

function validateName(rt: ResourceType, name: string, causes: FieldCause[]): void {
  if (rt.group === '' && rt.resource === 'events') return;
  // RBAC names are path segments only (`system:discovery`), as upstream validates them.
  if (rt.group === RBAC_GROUP) {
    if (name === '' || name === '.' || name === '..' || /[/%]/.test(name)) {
      causes.push({
        field: 'metadata.name',
        message: `Invalid value: "${name}": may not be '.' or '..' and may not contain '/' or '%'`,
      });
    }
    return;
  }
  if (LABEL_NAMES.has(rt.resource) && rt.group === '') {
    if (!DNS_LABEL.test(name) || name.length > 63) {
      causes.push({
        field: 'metadata.name',
        message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
      });
    }
  } else if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
    causes.push({
      field: 'metadata.name',
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    });
  }
}

function validatePodSpec(spec: unknown, field: string, causes: FieldCause[]): void {
  const s = rec(spec);
  const containers = s?.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push({ field: `${field}.containers`, message: 'Required value', reason: 'FieldValueRequired' });
    return;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const container = rec(c);
    const name = container?.name;
    if (typeof name !== 'string' || name === '') {
      causes.push({
        field: `${field}.containers[${i}].name`,
        message: 'Required value',
        reason: 'FieldValueRequired',
      });
    } else if (names.has(name)) {
      causes.push({
        field: `${field}.containers[${i}].name`,
        message: `Duplicate value: "${name}"`,
        reason: 'FieldValueDuplicate',
      });
    } else names.add(name);
    if (typeof container?.image !== 'string' || container.image === '') {
      causes.push({
        field: `${field}.containers[${i}].image`,
        message: 'Required value',
        reason: 'FieldValueRequired',
      });
    }
  });
}

function validateWorkload(object: Rec, causes: FieldCause[]): void {
  const spec = rec(object.spec);
  const selector = rec(spec?.selector);
  if (!selector || requirementsOf(selector).length === 0) {
    causes.push({ field: 'spec.selector', message: 'Required value', reason: 'FieldValueRequired' });
  } else {
    const labels = rec(rec(rec(spec?.template)?.metadata)?.labels) as Record<string, string> | undefined;
    if (!selectorMatches(selector, labels)) {
      causes.push({
        field: 'spec.template.metadata.labels',
        message: `Invalid value: ${JSON.stringify(labels ?? {})}: \`selector\` does not match template \`labels\``,
      });
    }
  }
  const replicas = spec?.replicas;
  if (typeof replicas === 'number' && replicas < 0) {
    causes.push({
      field: 'spec.replicas',
      message: `Invalid value: ${replicas}: must be greater than or equal to 0`,
    });
  }
  validatePodSpec(rec(spec?.template)?.spec, 'spec.template.spec', causes);
}

function validateService(object: Rec, causes: FieldCause[]): void {
  const spec = rec(object.spec);
  const ports = spec?.ports;
  const headless = spec?.clusterIP === 'None' || spec?.type === 'ExternalName';
  if (!headless && (!Array.isArray(ports) || ports.length === 0)) {
    causes.push({ field: 'spec.ports', message: 'Required value', reason: 'FieldValueRequired' });
  }
  if (Array.isArray(ports)) {
    ports.forEach((p, i) => {
      const port = rec(p)?.port;
      if (typeof port !== 'number' || port < 1 || port > 65535) {
        causes.push({
          field: `spec.ports[${i}].port`,
          message: `Invalid value: ${JSON.stringify(port)}: must be between 1 and 65535, inclusive`,
        });
      }
    });
  }
}

/** A binding names its role once and for all; a rule says its verbs, and a Role's no paths. */
function validateRbac(
  rt: ResourceType,
  o: Rec,
  previous: KubeObject | undefined,
  causes: FieldCause[],
): void {
  if (rt.resource.endsWith('bindings')) {
    const ref = rec(o.roleRef);
    const kinds = rt.resource === 'rolebindings' ? ['Role', 'ClusterRole'] : ['ClusterRole'];
    if (!ref || typeof ref.name !== 'string' || ref.name === '' || !kinds.includes(String(ref.kind))) {
      causes.push({
        field: 'roleRef',
        message: `Invalid value: ${JSON.stringify(o.roleRef ?? null)}: names a ${kinds.join(' or ')} by kind and name`,
      });
    } else if (previous && !deepEqual(previous.roleRef, o.roleRef)) {
      causes.push({ field: 'roleRef', message: 'Invalid value: cannot change roleRef' });
    }
    return;
  }
  const rules = Array.isArray(o.rules) ? o.rules : [];
  rules.forEach((rule, i) => {
    const r = rec(rule);
    if (!Array.isArray(r?.verbs) || r.verbs.length === 0) {
      causes.push({
        field: `rules[${i}].verbs`,
        message: 'Required value: verbs must contain at least one value',
      });
    }
    if (rt.resource === 'roles' && Array.isArray(r?.nonResourceURLs) && r.nonResourceURLs.length > 0) {
      causes.push({
        field: `rules[${i}].nonResourceURLs`,
        message: 'Invalid value: namespaced rules cannot apply to non-resource URLs',
      });
    }
  });
}

export function validate(rt: ResourceType, object: KubeObject, previous: KubeObject | undefined): void {
  const causes: FieldCause[] = [];
  const name = object.metadata.name ?? '';
  validateName(rt, name, causes);
  const o = object as Rec;
  if (rt.group === '' && rt.resource === 'pods') validatePodSpec(o.spec, 'spec', causes);
  else if (rt.group === 'apps' && (rt.resource === 'deployments' || rt.resource === 'replicasets')) {
    validateWorkload(o, causes);
    if (previous && !deepEqual(rec(previous.spec)?.selector, rec(o.spec)?.selector)) {
      causes.push({
        field: 'spec.selector',
        message: `Invalid value: ${JSON.stringify(rec(o.spec)?.selector)}: field is immutable`,
      });
    }
  } else if (rt.group === '' && rt.resource === 'services') validateService(o, causes);
  else if (rt.group === RBAC_GROUP) validateRbac(rt, o, previous, causes);
  for (const [key, value] of Object.entries(object.metadata.labels ?? {})) {
    if (typeof value !== 'string')
      causes.push({ field: `metadata.labels.${key}`, message: 'Invalid value: must be a string' });
  }
  if (causes.length > 0) throw invalid(rt, name, causes);
}

/** Generation counts changes to everything but metadata and status. */
export function specChanged(previous: KubeObject, next: KubeObject): boolean {
  const keys = new Set([...Object.keys(previous), ...Object.keys(next)]);
  for (const key of keys) {
    if (key === 'metadata' || key === 'status' || key === 'apiVersion' || key === 'kind') continue;
    if (!deepEqual(previous[key], next[key])) return true;
  }
  return false;
}
