// The Kubernetes API semantics behind every verb: what create, update, patch, apply, delete and list
// do to stored objects. The HTTP layer and the in-process controllers both go through here, so
// controller writes bump resourceVersions, track field ownership and reach watchers like any other.

import { randomUUID } from 'node:crypto';
import { applyDefaults, specChanged, validate } from './defaults.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalidPatch,
  notFound,
  STALE_OBJECT,
  unsupportedMediaType,
} from './errors.ts';
import { clone, deepEqual, isObject, metaTime, randomSuffix } from './json.ts';
import { jsonPatch } from './patch/json-patch.ts';
import { type FieldContext, serverSideApply, trackUpdate } from './patch/managed-fields.ts';
import { mergePatch } from './patch/merge-patch.ts';
import { strategicMergePatch } from './patch/strategic-merge.ts';
import { groupVersion, type Registry, type ResourceType } from './registry.ts';
import { fieldMatcher, parseLabelSelector, requirementsMatcher } from './selectors.ts';
import { objectKey, type Store } from './store.ts';
import type { KubeObject, ManagedFieldsEntry } from './types.ts';

export const PatchType = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface WriteOptions {
  fieldManager?: string | undefined;
  dryRun?: boolean | undefined;
}

export interface UpdateOptions extends WriteOptions {
  subresource?: 'status' | undefined;
}

export interface PatchOptions extends UpdateOptions {
  force?: boolean | undefined;
}

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy | undefined;
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
  dryRun?: boolean | undefined;
}

export interface ListOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number | undefined;
  continue?: string | undefined;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

const DEFAULT_MANAGER = 'unknown';
const NODE_NAME = 'local-node';

export class Api {
  readonly registry: Registry;
  readonly store: Store;

  /**
   * Cluster IPs in use, kept from the store's Service events: collecting them from every Service at
   * each create made a namespace of thousands of previews cost more per Service the more it held.
   */
  private readonly clusterIPs = new Set<string>();

  constructor(registry: Registry, store: Store) {
    this.registry = registry;
    this.store = store;
    for (const service of store.list(registry.byResource('', 'services')))
      this.noteClusterIP(undefined, service);
    store.subscribe((e) => {
      if (e.rt.group === '' && e.rt.resource === 'services')
        this.noteClusterIP(e.previous, e.type === 'DELETED' ? undefined : e.object);
    });
  }

  private noteClusterIP(previous: KubeObject | undefined, next: KubeObject | undefined): void {
    const ip = (service: KubeObject | undefined) =>
      isObject(service?.spec) ? service.spec.clusterIP : undefined;
    const [before, after] = [ip(previous), ip(next)];
    if (typeof before === 'string' && before !== after) this.clusterIPs.delete(before);
    if (typeof after === 'string') this.clusterIPs.add(after);
  }

  rt(group: string, resource: string): ResourceType {
    return this.registry.byResource(group, resource);
  }

  tryGet(rt: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(rt, namespace, name);
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const found = this.store.get(rt, namespace, name);
    if (!found) throw notFound(rt, name);
    return found;
  }

  list(rt: ResourceType, namespace: string | undefined, options: ListOptions = {}): ListResult {
    const requirements = parseLabelSelector(options.labelSelector ?? '');
    const matchLabels = requirementsMatcher(requirements);
    const matchFields = fieldMatcher(options.fieldSelector);
    let listRv = this.store.currentRv();
    let after: string | undefined;
    if (options.continue) {
      const token = decodeContinue(options.continue);
      listRv = token.rv;
      after = token.start;
    }
    const all = this.store.candidates(rt, namespace, requirements);
    const items: KubeObject[] = [];
    let remaining = 0;
    let lastKey: string | undefined;
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    for (const object of all) {
      const key = objectKey(object.metadata.namespace, object.metadata.name ?? '');
      if (after !== undefined && key <= after) continue;
      if (!matchLabels(object.metadata.labels) || !matchFields(object)) continue;
      if (limit !== undefined && items.length >= limit) {
        remaining++;
        continue;
      }
      items.push(object);
      lastKey = key;
    }
    const result: ListResult = { items, resourceVersion: String(listRv) };
    if (remaining > 0 && lastKey !== undefined) {
      result.continue = encodeContinue(listRv, lastKey);
      result.remainingItemCount = remaining;
    }
    return result;
  }

  private fieldContext(rt: ResourceType): FieldContext {
    return { builtin: rt.builtin, apiVersion: groupVersion(rt), now: metaTime() };
  }

  private checkIdentity(rt: ResourceType, body: unknown, namespace: string | undefined): KubeObject {
    if (!isObject(body)) throw badRequest('the request body must be a JSON object');
    const object = body as KubeObject;
    if (!isObject(object.metadata)) object.metadata = {};
    if (object.kind !== undefined && object.kind !== rt.kind) {
      throw badRequest(
        `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${groupVersion(rt)}) or kind ${String(object.kind)} is not ${rt.kind}`,
      );
    }
    if (object.apiVersion !== undefined && object.apiVersion !== groupVersion(rt)) {
      const version = String(object.apiVersion);
      const group = version.includes('/') ? version.split('/')[0] : '';
      if (group !== rt.group)
        throw badRequest(
          `the API version in the data (${version}) does not match the expected API version (${groupVersion(rt)})`,
        );
    }
    if (rt.namespaced && object.metadata.namespace && namespace && object.metadata.namespace !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    return object;
  }

  private checkNamespace(rt: ResourceType, namespace: string | undefined, name: string): void {
    if (!rt.namespaced) return;
    if (!namespace) throw badRequest('a namespace must be given for a namespaced resource');
    const ns = this.store.get(this.rt('', 'namespaces'), undefined, namespace);
    if (!ns) throw notFound(this.rt('', 'namespaces'), namespace);
    if (ns.metadata.deletionTimestamp && !(rt.group === '' && rt.resource === 'events')) {
      throw forbidden(
        `${rt.resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        rt,
        name,
      );
    }
  }

  create(
    rt: ResourceType,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions = {},
    managedFields?: ManagedFieldsEntry[],
  ): KubeObject {
    const input = this.checkIdentity(rt, clone(body), namespace);
    const meta = input.metadata;
    if (!meta.name && !meta.generateName) {
      throw invalidNoName(rt);
    }
    const object: KubeObject = { ...input, apiVersion: groupVersion(rt), kind: rt.kind };
    object.metadata = { ...meta };
    const m = object.metadata;
    delete m.resourceVersion;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.managedFields;
    if (rt.namespaced && namespace !== undefined) m.namespace = namespace;
    else delete m.namespace;
    m.uid = randomUUID();
    m.creationTimestamp = metaTime();
    m.generation = 1;
    if (rt.hasStatus) this.initialStatus(rt, object);
    this.prepareNew(rt, object);
    applyDefaults(rt, object);
    let attempts = 0;
    if (!meta.name) m.name = `${meta.generateName}${randomSuffix()}`;
    while (this.store.get(rt, m.namespace, m.name ?? '')) {
      if (meta.name || attempts++ > 8) throw alreadyExists(rt, m.name ?? '');
      m.name = `${meta.generateName}${randomSuffix()}`;
    }
    validate(rt, object, undefined);
    this.checkNamespace(rt, m.namespace, m.name ?? '');
    m.managedFields =
      managedFields ??
      trackUpdate(
        undefined,
        object,
        options.fieldManager ?? DEFAULT_MANAGER,
        undefined,
        this.fieldContext(rt),
      );
    if (m.managedFields.length === 0) delete m.managedFields;
    if (options.dryRun)
      return { ...object, metadata: { ...m, resourceVersion: String(this.store.currentRv()) } };
    return this.store.put(rt, object);
  }

  private initialStatus(rt: ResourceType, object: KubeObject): void {
    if (rt.group === '' && rt.resource === 'pods')
      object.status = { phase: 'Pending', qosClass: 'BestEffort' };
    else if (rt.group === '' && rt.resource === 'namespaces') object.status = { phase: 'Active' };
    else if (rt.group === '' && rt.resource === 'services') object.status = { loadBalancer: {} };
    else if (rt.builtin) object.status = {};
    else delete object.status;
  }

  /** Fields set once at creation by other parts of a real control plane (scheduler, IP allocator). */
  private prepareNew(rt: ResourceType, object: KubeObject): void {
    const spec = isObject(object.spec) ? object.spec : undefined;
    if (rt.group === '' && rt.resource === 'pods' && spec && !spec.nodeName) spec.nodeName = NODE_NAME;
    if (rt.group === '' && rt.resource === 'services' && spec) {
      if (spec.type !== 'ExternalName' && !spec.clusterIP) {
        spec.clusterIP = this.allocateClusterIP();
        spec.clusterIPs = [spec.clusterIP];
      }
    }
  }

  private allocateClusterIP(): string {
    for (let i = 10; i < 65_000; i++) {
      const ip = `10.96.${Math.floor(i / 254)}.${(i % 254) + 1}`;
      if (!this.clusterIPs.has(ip)) return ip;
    }
    throw new Error('service IP range exhausted');
  }

  update(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: UpdateOptions = {},
  ): KubeObject {
    const current = this.get(rt, namespace, name);
    const input = this.checkIdentity(rt, clone(body), namespace);
    if (input.metadata.name !== undefined && input.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${input.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    const wanted = input.metadata.resourceVersion;
    if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(rt, name, STALE_OBJECT);
    const next = this.prepareUpdate(rt, current, input, options.subresource);
    next.metadata.managedFields = trackUpdate(
      current,
      next,
      options.fieldManager ?? DEFAULT_MANAGER,
      options.subresource,
      this.fieldContext(rt),
    );
    return this.commit(rt, current, next, options.dryRun);
  }

  private prepareUpdate(
    rt: ResourceType,
    current: KubeObject,
    input: KubeObject,
    subresource: 'status' | undefined,
  ): KubeObject {
    let next: KubeObject;
    if (subresource === 'status') {
      next = clone(current);
      if (input.status === undefined) delete next.status;
      else next.status = clone(input.status);
    } else {
      next = { ...input, apiVersion: groupVersion(rt), kind: rt.kind };
      const m = { ...input.metadata };
      const c = current.metadata;
      for (const key of [
        'name',
        'namespace',
        'uid',
        'creationTimestamp',
        'generation',
        'deletionTimestamp',
        'deletionGracePeriodSeconds',
      ] as const) {
        if (c[key] === undefined) delete m[key];
        else (m as Record<string, unknown>)[key] = c[key];
      }
      next.metadata = m;
      if (rt.hasStatus) {
        if (current.status === undefined) delete next.status;
        else next.status = current.status;
      }
      if (rt.group === '' && rt.resource === 'services') carryClusterIP(current, next);
      if (rt.group === '' && rt.resource === 'pods') carryNodeName(current, next);
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion ?? '';
    applyDefaults(rt, next);
    validate(rt, next, current);
    if (specChanged(current, next)) next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    return next;
  }

  /** Stores `next` unless it equals `current`; an object being deleted goes once its finalizers are gone. */
  private commit(
    rt: ResourceType,
    current: KubeObject,
    next: KubeObject,
    dryRun: boolean | undefined,
  ): KubeObject {
    if (next.metadata.managedFields?.length === 0) delete next.metadata.managedFields;
    const deleting =
      next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0;
    if (dryRun) return next;
    if (deleting) return this.store.remove(rt, next) ?? next;
    if (deepEqual(next, current)) return current;
    return this.store.put(rt, next);
  }

  patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: string,
    body: unknown,
    options: PatchOptions = {},
  ): { object: KubeObject; created: boolean } {
    if (patchType === PatchType.apply) return this.apply(rt, namespace, name, body, options);
    const current = this.get(rt, namespace, name);
    let patched: unknown;
    if (patchType === PatchType.merge) patched = mergePatch(current, body);
    else if (patchType === PatchType.json) patched = jsonPatch(current, body);
    else if (patchType === PatchType.strategic) {
      if (!rt.builtin) throw unsupportedMediaType(patchType);
      patched = strategicMergePatch(current, body);
    } else throw unsupportedMediaType(patchType);
    if (!isObject(patched) || !isObject(patched.metadata))
      throw invalidPatch('the patch removed the object metadata');
    const input = patched as KubeObject;
    const wanted = input.metadata.resourceVersion;
    if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(rt, name, STALE_OBJECT);
    if (input.metadata.name !== name)
      throw badRequest(
        `the name of the object (${String(input.metadata.name)}) does not match the name on the URL (${name})`,
      );
    const next = this.prepareUpdate(rt, current, input, options.subresource);
    next.metadata.managedFields = trackUpdate(
      current,
      next,
      options.fieldManager ?? DEFAULT_MANAGER,
      options.subresource,
      this.fieldContext(rt),
    );
    return { object: this.commit(rt, current, next, options.dryRun), created: false };
  }

  private apply(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: PatchOptions,
  ): { object: KubeObject; created: boolean } {
    const manager = options.fieldManager;
    if (!manager) throw badRequest('PATCH /apply requires fieldManager to be set');
    if (!isObject(body)) throw badRequest('an apply patch must be an object');
    const config = this.checkIdentity(rt, clone(body), namespace);
    if (config.apiVersion === undefined || config.kind === undefined) {
      throw badRequest('apiVersion and kind must be set in an apply patch');
    }
    if (config.metadata.name !== undefined && config.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${config.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    const ctx = this.fieldContext(rt);
    const current = this.store.get(rt, namespace, name);
    if (options.subresource === 'status') {
      if (!current) throw notFound(rt, name);
      const next = this.prepareUpdate(
        rt,
        current,
        mergePatch(current, { status: config.status ?? null }) as KubeObject,
        'status',
      );
      next.metadata.managedFields = trackUpdate(current, next, manager, 'status', ctx);
      return { object: this.commit(rt, current, next, options.dryRun), created: false };
    }
    if (!current) {
      const result = serverSideApply(undefined, config, manager, true, ctx);
      result.object.metadata.name = name;
      const created = this.create(rt, namespace, result.object, options, result.managedFields);
      return { object: created, created: true };
    }
    const wanted = config.metadata.resourceVersion;
    if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(rt, name, STALE_OBJECT);
    const result = serverSideApply(current, config, manager, options.force ?? false, ctx);
    const next = this.prepareUpdate(rt, current, result.object, undefined);
    next.metadata.managedFields = result.managedFields;
    return { object: this.commit(rt, current, next, options.dryRun), created: false };
  }

  delete(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): { object: KubeObject; deleted: boolean } {
    const current = this.get(rt, namespace, name);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw conflict(
        rt,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(
        rt,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    if (options.dryRun) return { object: current, deleted: true };
    const finalizers = [...(current.metadata.finalizers ?? [])];
    const policy = options.propagationPolicy ?? 'Background';
    if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
      finalizers.push('foregroundDeletion');
    const isNamespace = rt.group === '' && rt.resource === 'namespaces';
    if (finalizers.length === 0 && !isNamespace) {
      return { object: this.store.remove(rt, current) ?? current, deleted: true };
    }
    if (current.metadata.deletionTimestamp && deepEqual(finalizers, current.metadata.finalizers ?? [])) {
      return { object: current, deleted: false };
    }
    const next = clone(current);
    if (!next.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = metaTime();
      next.metadata.deletionGracePeriodSeconds = 0;
      next.metadata.generation = (next.metadata.generation ?? 1) + 1;
    }
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (isNamespace) next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
    return { object: this.store.put(rt, next), deleted: false };
  }

  deleteCollection(
    rt: ResourceType,
    namespace: string | undefined,
    listOptions: ListOptions,
    options: DeleteOptions,
  ): KubeObject[] {
    const { items } = this.list(rt, namespace, { ...listOptions, limit: undefined, continue: undefined });
    const out: KubeObject[] = [];
    for (const item of items) {
      const found = this.store.get(rt, item.metadata.namespace, item.metadata.name ?? '');
      if (!found) continue;
      out.push(this.delete(rt, item.metadata.namespace, item.metadata.name ?? '', options).object);
    }
    return out;
  }

  /** Controller helper: writes `status` through the status subresource unless it is unchanged. */
  writeStatus(rt: ResourceType, current: KubeObject, status: unknown, manager: string): KubeObject {
    if (deepEqual(current.status, status)) return current;
    const latest = this.store.get(rt, current.metadata.namespace, current.metadata.name ?? '');
    if (!latest) return current;
    return this.update(
      rt,
      latest.metadata.namespace,
      latest.metadata.name ?? '',
      { ...latest, status },
      {
        subresource: 'status',
        fieldManager: manager,
      },
    );
  }

  /** Controller helper: removes one finalizer; the object goes if it was the last one during deletion. */
  removeFinalizer(rt: ResourceType, current: KubeObject, finalizer: string, manager: string): void {
    const finalizers = current.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    const next = clone(current);
    next.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
    if (next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
    this.update(rt, current.metadata.namespace, current.metadata.name ?? '', next, { fieldManager: manager });
  }
}

function invalidNoName(rt: ResourceType) {
  return badRequest(
    `${rt.kind} must have metadata.name or metadata.generateName: name or generateName is required`,
  );
}

function carryClusterIP(current: KubeObject, next: KubeObject): void {
  const before = isObject(current.spec) ? current.spec : {};
  const after = isObject(next.spec) ? next.spec : undefined;
  if (!after) return;
  if (!after.clusterIP && before.clusterIP) after.clusterIP = before.clusterIP;
  if (!after.clusterIPs && before.clusterIPs) after.clusterIPs = before.clusterIPs;
}

function carryNodeName(current: KubeObject, next: KubeObject): void {
  const before = isObject(current.spec) ? current.spec : {};
  const after = isObject(next.spec) ? next.spec : undefined;
  if (after && !after.nodeName && before.nodeName) after.nodeName = before.nodeName;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      rv?: unknown;
      start?: unknown;
    };
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string')
      return { rv: parsed.rv, start: parsed.start };
  } catch {
    // fall through to the error below
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}
