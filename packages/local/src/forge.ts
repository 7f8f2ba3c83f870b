/**
 * The local forge beside the stack: a GitHub stand-in with the app installed on the demo
 * repository (mapped to `service-b` of project `demo`), a seeded preview policy, and a stand-in
 * CI that publishes a build for every new head commit through the normal build-publication route.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type Forge, type Log, systemClock } from '@svc/core';
import { type LocalForge, type PushEvent, startLocalForge } from '@svc/local-forge';

export const demoRepository = 'demo-org/service-b';

/** What the stand-in CI builds for each repository it knows. */
const demoBuilds: Record<string, { project: string; component: string }> = {
  [demoRepository]: { project: 'demo', component: 'service-b' },
};

const demoPolicy = {
  enabled: true,
  trigger_label: 'preview',
  baseline: 'staging',
  ttl: '8h',
  components: ['service-b'],
  fork_pull_requests: false,
  feedback: 'comment',
} as const;

export interface LocalForgeOptions {
  /** The forge's port (default 0: a free one; `npm start` uses 8083, the forge CLI's default). */
  port?: number;
  /** Publish a build for every pushed head commit, as CI would (default true). */
  publishOnPush?: boolean;
  /** Least milliseconds between two writes to the forge (default 250; GitHub asks for 1000). */
  writeIntervalMs?: number;
}

/**
 * The image CI "built" for a commit: pinned by a digest derived from the commit. The tag follows
 * the branch name's last word, so the local cluster's image rules apply to a pull request: a
 * branch ending `-crash` crash-loops, `-missing` fails to pull, `-slow` is ready after 30 s.
 */
export function ciImage(component: string, push: Pick<PushEvent, 'headSha' | 'branch'>): string {
  const suffix = /-(missing|crash|slow)$/.exec(push.branch)?.[1];
  const tag = `pr-${push.headSha.slice(0, 12)}${suffix ? `-${suffix}` : ''}`;
  const digest = createHash('sha256').update(push.headSha).digest('hex');
  return `registry.example.com/demo/${component}:${tag}@sha256:${digest}`;
}

/** The stand-in CI: one POST to the build-publication route per pushed commit. */
async function publishBuild(apiUrl: () => string, token: () => Promise<string | null>, push: PushEvent) {
  const target = demoBuilds[push.repository.toLowerCase()];
  if (!target) return;
  const bearer = await token();
  const response = await fetch(`${apiUrl()}/v1/projects/${target.project}/builds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({
      component: target.component,
      repository: push.repository,
      commit_sha: push.headSha,
      ref: push.branch,
      image: ciImage(target.component, push),
    }),
  });
  if (!response.ok) throw new Error(`publishing the build of ${push.headSha} answered ${response.status}`);
}

export async function startStackForge(options: {
  stateDir: string | undefined;
  apiUrl: () => string;
  token: () => Promise<string | null>;
  forge: LocalForgeOptions;
  log: Log;
}): Promise<LocalForge> {
  return startLocalForge({
    seed: true,
    port: options.forge.port ?? 0,
    ...(options.stateDir ? { stateFile: join(options.stateDir, 'forge.json') } : {}),
    onPush: async (push) => {
      if (options.forge.publishOnPush === false) return;
      await publishBuild(options.apiUrl, options.token, push).catch((error: unknown) =>
        options.log({ level: 'warn', msg: 'local CI did not publish', error: String(error) }),
      );
    },
  });
}

/** The demo policy, written once (a policy someone changed stays as they left it). */
export async function seedDemoPolicy(store: Forge.ForgeStore): Promise<void> {
  await store.putPolicy(
    {
      ...demoPolicy,
      components: [...demoPolicy.components],
      project: 'demo',
      repository: demoRepository,
      build_selection: 'head_sha',
      group_by: 'none',
      revision: 1,
      updated_at: systemClock.now().toISOString(),
      updated_by: 'admin',
    },
    0,
  );
}
