/** Discovery through the app: its installations and the repositories each can reach. */
import * as v from 'valibot';
import { ErrorCode, ProblemError } from '../errors.ts';
import { parseQueryOrThrow } from '../validation.ts';
import { requireForge } from './drive.ts';
import type { InstallationPage, RepositoryPage } from './model.ts';
import type { ForgeDeps } from './ports.ts';

const PageQuery = v.object({
  page: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9]\d{0,5}$/, 'a page number from 1'), v.transform(Number)),
  ),
});

const pageOf = (query: Record<string, string | undefined>) => parseQueryOrThrow(PageQuery, query).page ?? 1;

export function listInstallations(
  deps: Pick<ForgeDeps, 'forge'>,
  query: Record<string, string | undefined>,
): Promise<InstallationPage> {
  return requireForge(deps).listInstallations(pageOf(query));
}

export function listRepositories(
  deps: Pick<ForgeDeps, 'forge'>,
  installation: string,
  query: Record<string, string | undefined>,
): Promise<RepositoryPage> {
  const page = pageOf(query);
  if (!/^[1-9]\d{0,15}$/.test(installation)) {
    return Promise.reject(new ProblemError(ErrorCode.NotFound, `installation "${installation}" not found`));
  }
  return requireForge(deps).listRepositories(Number(installation), page);
}
