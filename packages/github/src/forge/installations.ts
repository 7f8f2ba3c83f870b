// Which installation holds a repository, cached: a repository is looked up again after a while, when
// its installation's token is refused, or when an installation event names it.

import { call } from './calls.ts';
import { appClient, client, forget } from './clients.ts';
import type { GitHubContext, Installed } from './context.ts';
import { isStatus } from './octokit.ts';
import { split } from './params.ts';

/** How long an installation lookup of a repository is trusted. */
const installationCacheMs = 10 * 60 * 1000;

/** How long "not installed there" is trusted. */
const notInstalledCacheMs = 30_000;

/** The installation holding a repository (null: the app is not installed there). */
async function installationOf(context: GitHubContext, repository: string): Promise<number | null> {
  const key = repository.toLowerCase();
  const cached = context.installations.get(key);
  if (cached && cached.until > Date.now()) return cached.id;
  try {
    const { data } = await call(context, 'app', () =>
      appClient(context).request('GET /repos/{owner}/{repo}/installation', split(repository)),
    );
    context.installations.set(key, { id: data.id, until: Date.now() + installationCacheMs });
    return data.id;
  } catch (error) {
    if (isStatus(error, 404)) {
      context.installations.set(key, { id: null, until: Date.now() + notInstalledCacheMs });
      return null;
    }
    throw error;
  }
}

/** A client of the installation holding `repository`; null when the app is not installed there. */
export async function installed(context: GitHubContext, repository: string): Promise<Installed | null> {
  const installation = await installationOf(context, repository);
  if (installation === null) return null;
  const id = String(installation);
  return { octokit: client(context, id, { installationId: installation }), id };
}

export async function requireInstalled(context: GitHubContext, repository: string): Promise<Installed> {
  const found = await installed(context, repository);
  if (!found) throw new Error(`the app is not installed on ${repository}`);
  return found;
}

/** The repository left its installation, or was never in one: look it up again next time. */
export function forgetRepository(context: GitHubContext, repository: string): void {
  context.installations.delete(repository.toLowerCase());
}

export function forgetRepositories(context: GitHubContext, repositories: readonly string[]): void {
  for (const repository of repositories) {
    const cached = context.installations.get(repository.toLowerCase());
    // Its token too: one issued before a suspension may be refused after it.
    if (cached?.id != null) forget(context, String(cached.id));
    forgetRepository(context, repository);
  }
}
