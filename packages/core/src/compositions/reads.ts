/** The composition reads behind the HTTP routes. Every read computes expiry at the time of asking. */
import { anyProject, authorize, type Permission, readableProjects } from '../auth/access.ts';
import type { Identity } from '../auth/identity.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { CompositionEvent, CompositionRecord } from './model.ts';
import type { CompositionDeps } from './ports.ts';
import type { CompositionEndpointsView, CompositionStatusView, CompositionView } from './schema.ts';
import { compositionView, endpointsView, statusView } from './schema.ts';

/**
 * The stored composition if the caller holds `permission` on its project; 404 when it does not
 * exist or the caller may not know it does, 403 when the caller may read it but not do this.
 */
export async function requireComposition(
  deps: Pick<CompositionDeps, 'compositions'>,
  caller: Pick<Identity, 'grants'>,
  id: string,
  permission: Permission,
): Promise<CompositionRecord> {
  const record = await deps.compositions.get(id);
  if (!record) throw new ProblemError(ErrorCode.NotFound, `composition "${id}" not found`);
  return authorizedComposition(caller, record, permission);
}

/** A composition already read, if the caller may act on it. */
export function authorizedComposition(
  caller: Pick<Identity, 'grants'>,
  record: CompositionRecord,
  permission: Permission,
): CompositionRecord {
  authorize(caller, permission, { project: record.project, object: `composition "${record.id}"` });
  return record;
}

export async function get(deps: CompositionDeps, caller: Identity, id: string): Promise<CompositionView> {
  return compositionView(await requireComposition(deps, caller, id, 'composition:read'), deps.clock.now());
}

export async function getStatus(
  deps: CompositionDeps,
  caller: Identity,
  id: string,
): Promise<CompositionStatusView> {
  return statusView(await requireComposition(deps, caller, id, 'composition:read'), deps.clock.now());
}

export async function getEndpoints(
  deps: CompositionDeps,
  caller: Identity,
  id: string,
): Promise<CompositionEndpointsView> {
  return endpointsView(await requireComposition(deps, caller, id, 'composition:read'), deps.clock.now());
}

/** Compositions of the projects the caller may read; `project` narrows to one (empty if unreadable). */
export async function list(
  deps: CompositionDeps,
  caller: Identity,
  filter: { project: string | null },
  page: PageRequest,
): Promise<Page<CompositionView>> {
  const readable = readableProjects(caller.grants, 'composition:read');
  const projects = readable === anyProject ? null : [...readable];
  if (filter.project !== null && projects !== null && !projects.includes(filter.project)) {
    return { items: [], next_cursor: null };
  }
  const result = await deps.compositions.list({ project: filter.project, projects }, page);
  const now = deps.clock.now();
  return {
    items: result.items.map((record) => compositionView(record, now)),
    next_cursor: result.next_cursor,
  };
}

export async function listEvents(
  deps: CompositionDeps,
  caller: Identity,
  id: string,
  page: PageRequest,
): Promise<Page<CompositionEvent>> {
  await requireComposition(deps, caller, id, 'composition:read');
  return deps.compositions.listEvents(id, page);
}
