/**
 * GET /v1/forge/deliveries: what the forge sent and what became of it, so an operator can see why a
 * pull request got no preview. A delivery concerns repositories (a pull request's, or those an
 * installation event names) and so the projects whose policies name them now: a caller sees the
 * deliveries of repositories it may read previews of. A grant on every project sees them all,
 * including deliveries for repositories no policy names.
 */
import { anyProject, authorize, readableProjects } from '../auth/access.ts';
import type { Identity } from '../auth/identity.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { Delivery, DeliveryView } from './model.ts';
import { allPolicies } from './policies.ts';
import type { ForgeDeps } from './ports.ts';

type Caller = Pick<Identity, 'grants'>;

/** What one DynamoDB filter expression holds comfortably (its IN and OR lists are bounded). */
const maxFilteredRepositories = 100;

const concerns = (delivery: Delivery, repositories: ReadonlySet<string>) =>
  [delivery.repository, ...delivery.repositories].some(
    (r) => r !== null && repositories.has(r.toLowerCase()),
  );

/** What a caller may see: the projects and the repositories (lower case) their policies name; null: all. */
interface Scope {
  projects: ReadonlySet<string>;
  repositories: ReadonlySet<string>;
}

async function scopeOf(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  caller: Caller,
  project: string | null,
): Promise<Scope | null> {
  const readable = readableProjects(caller.grants, 'preview:read');
  if (project === null && readable === anyProject) return null;
  const projects = project === null ? (readable as ReadonlySet<string>) : new Set([project]);
  const policies = projects.size ? await allPolicies(deps) : [];
  const repositories = new Set(
    policies
      .filter((policy) => projects.has(policy.project))
      .map((policy) => policy.repository.toLowerCase()),
  );
  return { projects, repositories };
}

function deliveryView(delivery: Delivery, scope: Scope | null): DeliveryView {
  return {
    id: delivery.id,
    event: delivery.event,
    action: delivery.action,
    repository: delivery.repository,
    number: delivery.number,
    // An installation event may name repositories of other projects: only the visible ones are shown.
    repositories:
      scope === null
        ? delivery.repositories
        : delivery.repositories.filter((repository) => scope.repositories.has(repository.toLowerCase())),
    account: delivery.account,
    state: delivery.state,
    attempts: delivery.attempts,
    error: delivery.error,
    received_at: delivery.received_at,
    due_at: delivery.due_at,
    finished_at: delivery.finished_at,
    // Likewise, only the decisions of projects the caller may see.
    outcome:
      scope === null ? delivery.outcome : delivery.outcome.filter((o) => scope.projects.has(o.project)),
  };
}

/** `?project=` (the caller must read its previews) and `?repository=` narrow the list; newest first. */
export async function listDeliveries(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  caller: Caller,
  filter: { project?: string | undefined; repository?: string | undefined },
  page: PageRequest,
): Promise<Page<DeliveryView>> {
  const project = filter.project ?? null;
  if (project !== null) authorize(caller, 'preview:read', { project });
  const scope = await scopeOf(deps, caller, project);
  const wanted = filter.repository?.toLowerCase() ?? null;
  let repositories: string[] | null = scope === null ? null : [...scope.repositories].sort();
  if (wanted !== null) repositories = scope === null || scope.repositories.has(wanted) ? [wanted] : [];
  // The store filters on at most so many repositories; past that the page is filtered here (and may be short).
  const stored = repositories === null || repositories.length <= maxFilteredRepositories;
  const result = await deps.forgeStore.listDeliveries({ repositories: stored ? repositories : null }, page);
  const wantedSet = new Set(repositories);
  const items = stored ? result.items : result.items.filter((d) => concerns(d, wantedSet));
  return { items: items.map((d) => deliveryView(d, scope)), next_cursor: result.next_cursor };
}
