/** Discovery through the app: its installations and the repositories each can reach. */
import { ErrorCode, ProblemError } from '../errors.ts';
import type { ForgeDeps } from './ports.ts';
import { requireForge } from './preview-io.ts';
import type { InstallationPage, RepositoryPage } from './schema.ts';

/** `page` counts from 1. */
export function listInstallations(deps: Pick<ForgeDeps, 'forge'>, page: number): Promise<InstallationPage> {
  return requireForge(deps).listInstallations(page);
}

export function listRepositories(
  deps: Pick<ForgeDeps, 'forge'>,
  installation: string,
  page: number,
): Promise<RepositoryPage> {
  if (!/^[1-9]\d{0,15}$/.test(installation)) {
    return Promise.reject(new ProblemError(ErrorCode.NotFound, `installation "${installation}" not found`));
  }
  return requireForge(deps).listRepositories(Number(installation), page);
}
