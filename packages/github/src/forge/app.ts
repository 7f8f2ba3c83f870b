// The app's own view (JWT): whether its credentials work, its installations, and the repositories
// of one installation.

import { ErrorCode, type Forge, ProblemError } from '@svc/core';
import { call } from './calls.ts';
import { appClient, client } from './clients.ts';
import type { GitHubContext } from './context.ts';
import { isStatus } from './octokit.ts';
import { nextPage } from './params.ts';

const accountName = (account: unknown) => {
  const named = account as { login?: string; slug?: string; name?: string } | null;
  return named?.login ?? named?.slug ?? named?.name ?? '';
};

export async function checkApp(context: GitHubContext): ReturnType<Forge.ForgePort['checkApp']> {
  const { appId } = context.settings;
  try {
    await call(context, 'app', () => appClient(context).request('GET /app'));
    return { app_id: appId, private_key: 'valid', error: null };
  } catch (error) {
    if (isStatus(error, 401)) {
      return { app_id: appId, private_key: 'invalid', error: 'the forge refused the app JWT' };
    }
    throw error;
  }
}

export async function listInstallations(
  context: GitHubContext,
  page: number,
): Promise<Forge.InstallationPage> {
  const response = await call(context, 'app', () =>
    appClient(context).request('GET /app/installations', { per_page: 30, page }),
  );
  return {
    items: response.data.map((installation) => ({
      id: installation.id,
      account: accountName(installation.account),
      repository_selection: installation.repository_selection,
      created_at: installation.created_at ?? null,
      suspended_at: installation.suspended_at ?? null,
    })),
    page,
    next_page: nextPage(response.headers.link),
  };
}

export async function getInstallation(
  context: GitHubContext,
  id: number,
): ReturnType<Forge.ForgePort['getInstallation']> {
  try {
    const { data } = await call(context, 'app', () =>
      appClient(context).request('GET /app/installations/{installation_id}', { installation_id: id }),
    );
    return { id: data.id, account: accountName(data.account), suspended_at: data.suspended_at ?? null };
  } catch (error) {
    if (isStatus(error, 404)) return null;
    throw error;
  }
}

export async function listRepositories(
  context: GitHubContext,
  installationId: number,
  page: number,
): Promise<Forge.RepositoryPage> {
  const id = String(installationId);
  const octokit = client(context, id, { installationId });
  try {
    const response = await call(context, id, () =>
      octokit.request('GET /installation/repositories', { per_page: 30, page }),
    );
    return {
      items: response.data.repositories.map((repository) => ({
        id: Number(repository.id),
        full_name: repository.full_name,
        private: repository.private,
        default_branch: repository.default_branch ?? null,
      })),
      page,
      next_page: nextPage(response.headers.link),
    };
  } catch (error) {
    if (isStatus(error, 404, 401)) {
      throw new ProblemError(ErrorCode.NotFound, `installation "${installationId}" not found`);
    }
    throw error;
  }
}
