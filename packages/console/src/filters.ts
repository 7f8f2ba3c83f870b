/** The composition list's filters: parsed from the query, applied to the page the use case returns. */
import { Compositions, isDnsLabel, Operations } from '@svc/core';

export const OwnerFilter = { Anyone: '', Me: 'me', People: 'people', PullRequests: 'forge' } as const;
export type OwnerFilter = (typeof OwnerFilter)[keyof typeof OwnerFilter];

export interface ListFilter {
  project: string | null;
  phase: Compositions.Phase | null;
  owner: OwnerFilter;
}

const phases = new Set<string>(Object.values(Compositions.Phase));
const owners = new Set<string>(Object.values(OwnerFilter));

/** Unknown or malformed values read as "no filter": a filter form never answers with an error page. */
export function parseFilter(query: Record<string, string | undefined>): ListFilter {
  const project = query.project ?? '';
  const phase = query.phase ?? '';
  const owner = query.owner ?? '';
  return {
    project: isDnsLabel(project, 63) ? project : null,
    phase: phases.has(phase) ? (phase as Compositions.Phase) : null,
    owner: owners.has(owner) ? (owner as OwnerFilter) : OwnerFilter.Anyone,
  };
}

export function matches(view: Compositions.CompositionView, filter: ListFilter, subject: string): boolean {
  if (filter.phase && view.phase !== filter.phase) return false;
  switch (filter.owner) {
    case OwnerFilter.Me:
      return view.owner.subject === subject;
    case OwnerFilter.People:
      return view.owner.kind === Operations.OwnerKind.User;
    case OwnerFilter.PullRequests:
      return view.owner.kind === Operations.OwnerKind.Forge;
    default:
      return true;
  }
}

/** The query string that reproduces a filter (and a page), for links and the live refresh. */
export function filterQuery(filter: ListFilter, after: string | null = null): string {
  const params = new URLSearchParams();
  if (filter.project) params.set('project', filter.project);
  if (filter.phase) params.set('phase', filter.phase);
  if (filter.owner) params.set('owner', filter.owner);
  if (after) params.set('after', after);
  const text = params.toString();
  return text ? `?${text}` : '';
}
