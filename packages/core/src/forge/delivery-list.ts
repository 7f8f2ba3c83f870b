/**
 * GET /v1/forge/deliveries: what the forge sent and what became of it, so an operator can see why a
 * pull request got no preview. A delivery concerns repositories (a pull request's, or those an
 * installation event names) and so the projects whose policies name them now: a caller sees the
 * deliveries of repositories it may read previews of. A grant on every project sees them all,
 * including deliveries for repositories no policy names. What processing a delivery failed with
 * (`error`) is shown only to the project the repository belongs to: it can quote its pull request.
 */
import { anyProject, authorize, readableProjects } from '../auth/access.ts';
import type { Identity } from '../auth/identity.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { Delivery } from './model.ts';
import { allPolicies } from './policies.ts';
import type { ForgeDeps } from './ports.ts';
import type { DeliveryView } from './schema.ts';

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
  /** Every policy's project, by repository (lower case): who may own what a delivery concerns. */
  policyProjects: ReadonlyMap<string, ReadonlySet<string>>;
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
  const policyProjects = new Map<string, Set<string>>();
  for (const policy of policies) {
    const key = policy.repository.toLowerCase();
    policyProjects.set(key, (policyProjects.get(key) ?? new Set()).add(policy.project));
  }
  return { projects, repositories, policyProjects };
}

/**
 * The repositories of these deliveries whose owning project the caller may read previews of: the
 * project holding the repository, or, for one no project holds yet, the only project with a policy.
 */
async function ownedInScope(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  deliveries: readonly Delivery[],
  scope: Scope,
): Promise<Set<string>> {
  const repositories = [
    ...new Set(deliveries.flatMap((d) => (d.repository ? [d.repository.toLowerCase()] : []))),
  ];
  const owned = new Set<string>();
  await Promise.all(
    repositories.map(async (repository) => {
      const sole = [...(scope.policyProjects.get(repository) ?? [])];
      const owner =
        (await deps.forgeStore.repositoryOwner(repository)) ?? (sole.length === 1 ? sole[0] : null);
      if (owner && scope.projects.has(owner)) owned.add(repository);
    }),
  );
  return owned;
}

function deliveryView(delivery: Delivery, scope: Scope | null, owned: ReadonlySet<string>): DeliveryView {
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
    error:
      scope === null || (delivery.repository !== null && owned.has(delivery.repository.toLowerCase()))
        ? delivery.error
        : null,
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
  const owned = scope === null ? new Set<string>() : await ownedInScope(deps, items, scope);
  return { items: items.map((d) => deliveryView(d, scope, owned)), next_cursor: result.next_cursor };
}
