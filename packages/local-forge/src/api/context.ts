// What every route of the API shares: its dependencies, the caller's credentials on the Hono
// context, and the access checks GitHub makes before it looks at a repository's objects.

import type { Context } from 'hono';
import type { AppAuth, Credentials } from '../auth.ts';
import { JWT_UNDECODABLE } from '../auth.ts';
import { GitHubError, notFound } from '../errors.ts';
import type { RateLimits } from '../rate-limit.ts';
import type { Renderer } from '../render.ts';
import type { RequestLog } from '../request-log.ts';
import type { Simulator } from '../simulator.ts';
import type { InstallationRecord, PullRecord, RepositoryRecord } from '../state.ts';
import type { ForgeStore } from '../store.ts';
import type { WebhookSender } from '../webhooks.ts';
import { integer } from './input.ts';

export type Env = { Variables: { credentials: Credentials } };
export type Ctx = Context<Env>;
export type Level = 'read' | 'write';

export interface ApiDeps {
  store: ForgeStore;
  auth: AppAuth;
  render: Renderer;
  rateLimits: RateLimits;
  requests: RequestLog;
  webhooks: WebhookSender;
  /** Suspends or unsuspends an installation, with its webhook (the simulator's verb). */
  installations: Pick<Simulator, 'setSuspended'>;
}

const resourceNotAccessible = () => new GitHubError(403, 'Resource not accessible by integration');
const requiresAuthentication = () => new GitHubError(401, 'Requires authentication');

/** The app itself, signed in with its JWT. */
export function requireApp(c: Ctx): void {
  const credentials = c.get('credentials');
  if (credentials.kind === 'none') throw requiresAuthentication();
  if (credentials.kind !== 'app') throw new GitHubError(401, JWT_UNDECODABLE);
}

function requireInstallation(c: Ctx) {
  const credentials = c.get('credentials');
  if (credentials.kind === 'none') throw requiresAuthentication();
  if (credentials.kind !== 'installation') throw resourceNotAccessible();
  return credentials;
}

/** The repositories of the installation that its token may see. */
export function visibleRepositoryIds(c: Ctx): number[] {
  const { token, installation } = requireInstallation(c);
  return installation.repositoryIds.filter(
    (id) => token.repositoryIds === null || token.repositoryIds.includes(id),
  );
}

/** The path's repository, if the installation token may see it with one of `permissions` at `level` or above. */
export function repositoryFor(
  store: ForgeStore,
  c: Ctx,
  level: Level,
  ...permissions: string[]
): RepositoryRecord {
  const { token } = requireInstallation(c);
  const repository = store.repository(c.req.param('owner') ?? '', c.req.param('repo') ?? '');
  if (!repository || !visibleRepositoryIds(c).includes(repository.id)) throw notFound();
  const allowed = permissions.some((name) => {
    const granted = token.permissions[name];
    return granted === 'write' || (granted === 'read' && level === 'read');
  });
  if (!allowed) throw resourceNotAccessible();
  return repository;
}

export function pullFor(
  store: ForgeStore,
  repository: RepositoryRecord,
  value: string | undefined,
): PullRecord {
  const pull = store.pull(repository.id, integer(value));
  if (!pull) throw notFound();
  return pull;
}

export function commitFor(store: ForgeStore, repository: RepositoryRecord, ref: string): string {
  const sha = store.resolveRef(repository, ref);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
  return sha;
}

export function installationFor(store: ForgeStore, c: Ctx): InstallationRecord {
  const installation = store.installation(integer(c.req.param('installation_id')));
  if (!installation) throw notFound();
  return installation;
}
