/** The composition reads behind the HTTP routes. Every read computes expiry at the time of asking. */
import { ErrorCode, ProblemError } from '../errors.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { CompositionDeps } from './deps.ts';
import type { CompositionEvent, CompositionRecord } from './model.ts';
import type { CompositionEndpointsView, CompositionStatusView, CompositionView } from './schema.ts';
import { compositionView, endpointsView, statusView } from './view.ts';

/** The stored composition, or 404. */
export async function requireComposition(
  deps: Pick<CompositionDeps, 'compositions'>,
  id: string,
): Promise<CompositionRecord> {
  const record = await deps.compositions.get(id);
  if (!record) throw new ProblemError(ErrorCode.NotFound, `composition "${id}" not found`);
  return record;
}

export async function get(deps: CompositionDeps, id: string): Promise<CompositionView> {
  return compositionView(await requireComposition(deps, id), deps.clock.now());
}

export async function getStatus(deps: CompositionDeps, id: string): Promise<CompositionStatusView> {
  return statusView(await requireComposition(deps, id), deps.clock.now());
}

export async function getEndpoints(deps: CompositionDeps, id: string): Promise<CompositionEndpointsView> {
  return endpointsView(await requireComposition(deps, id), deps.clock.now());
}

export async function list(
  deps: CompositionDeps,
  filter: { project: string | null },
  page: PageRequest,
): Promise<Page<CompositionView>> {
  const result = await deps.compositions.list(filter, page);
  const now = deps.clock.now();
  return {
    items: result.items.map((record) => compositionView(record, now)),
    next_cursor: result.next_cursor,
  };
}

export async function listEvents(
  deps: CompositionDeps,
  id: string,
  page: PageRequest,
): Promise<Page<CompositionEvent>> {
  await requireComposition(deps, id);
  return deps.compositions.listEvents(id, page);
}
