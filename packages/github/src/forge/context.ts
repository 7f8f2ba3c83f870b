// What the forge port keeps between calls, per app: its clients, what it learnt of rate limits and
// installations, and the answers kept for conditional requests.

import type { Forge } from '@svc/core';
import Bottleneck from 'bottleneck';
import type { GitHubAppSettings } from '../settings.ts';
import type { Octokit } from './octokit.ts';

interface CachedAnswer {
  etag: string;
  data: unknown;
  link: string | undefined;
}

export interface GitHubContext {
  settings: GitHubAppSettings;
  /** Per installation id, or 'app' for the app's JWT. */
  budgets: Map<string, Forge.RateBudget>;
  /** Per repository (lower case): its installation (null: none) until `until`. */
  installations: Map<string, { id: number | null; until: number }>;
  /** Per installation id, or 'app'. */
  clients: Map<string, Octokit>;
  etags: Map<string, CachedAnswer>;
  writes: Bottleneck.Group;
}

/** A client of the installation holding a repository. */
export interface Installed {
  octokit: Octokit;
  id: string;
}

export function gitHubContext(settings: GitHubAppSettings): GitHubContext {
  return {
    settings,
    budgets: new Map(),
    installations: new Map(),
    clients: new Map(),
    etags: new Map(),
    // One write queue per app, not octokit's process-wide default.
    writes: new Bottleneck.Group({ maxConcurrent: 1, minTime: settings.writeIntervalMs }),
  };
}
