/**
 * After a deploy, the deployed stage must answer with what was deployed: `GET /version` reports the
 * commit, and `GET /healthz` answers 200 with every dependency `ok`. A freshly deployed function
 * may take a moment to answer (and an old instance may still be serving), so each is asked again
 * until it holds or the attempts run out. The deploy workflow runs it after each stage:
 * `node infra/deploy-check.ts --commit <sha>` (the API's URL from `.sst/outputs.json`).
 * Before a deploy, `--stage <stage>` refuses one that drops a cluster previews still run on
 * (`checkClusterRemoval`).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface DeployCheck {
  /** The API's base URL (the `api` output). */
  url: string;
  commit: string;
  attempts?: number;
  delayMs?: number;
  log?: (line: string) => void;
}

/** Resolves once both hold; rejects naming what the last attempt saw. */
export async function checkDeployment(check: DeployCheck): Promise<void> {
  const attempts = check.attempts ?? 20;
  const log = check.log ?? console.error;
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    last = await problems(check.url, check.commit);
    if (last === '') {
      log(`deploy check passed: ${check.url} runs ${check.commit} with every dependency ok`);
      return;
    }
    log(`deploy check ${attempt}/${attempts}: ${last}`);
    if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, check.delayMs ?? 6000));
  }
  throw new Error(`the deployed stage at ${check.url} is not what was deployed: ${last}`);
}

/** What is wrong now, or '' when nothing is. */
async function problems(url: string, commit: string): Promise<string> {
  const [version, health] = await Promise.all([answer(`${url}/version`), answer(`${url}/healthz`)]);
  const found: string[] = [];
  const served = (version.body as { commit?: unknown } | null)?.commit;
  if (version.status !== 200 || served !== commit) {
    found.push(
      `/version answered ${version.status} with commit ${JSON.stringify(served ?? null)}, not ${commit}`,
    );
  }
  const dependencies = (health.body as { dependencies?: Record<string, { status?: unknown }> } | null)
    ?.dependencies;
  const down = Object.entries(dependencies ?? {})
    .filter(([, d]) => d.status !== 'ok')
    .map(([name, d]) => `${name} ${String(d.status)}`);
  if (health.status !== 200 || !dependencies || down.length > 0) {
    found.push(`/healthz answered ${health.status}${down.length ? ` (${down.join(', ')})` : ''}`);
  }
  return found.join('; ');
}

export interface ClusterRemovalCheck {
  /** The running stage's API (its `publicOrigin`, or the `api` output). */
  url: string;
  /** An Admin token of the running stage: only a caller it identifies sees its clusters by name. */
  token: string;
  /** The clusters of the settings about to be deployed (`stageClusters`). */
  clusters: readonly string[];
  log?: (line: string) => void;
}

/**
 * Before a deploy: refuses one whose settings drop a cluster that still has live compositions,
 * which would be left running with nothing to destroy them (docs/deploy.md, "Removing a cluster or
 * a stage"). The running stage names its clusters on `/healthz` to the token, and a dry-run drain
 * of each cluster the settings drop lists what still lives there.
 */
export async function checkClusterRemoval(check: ClusterRemovalCheck): Promise<void> {
  const log = check.log ?? console.error;
  const authorization = `Bearer ${check.token}`;
  const health = await answer(`${check.url}/healthz`, { headers: { authorization } });
  const dependencies = (health.body as { dependencies?: Record<string, unknown> } | null)?.dependencies;
  if (!dependencies)
    throw new Error(`cannot read the running stage's clusters: /healthz answered ${health.status}`);
  const running = Object.keys(dependencies).flatMap((name) =>
    name.startsWith('cluster:') ? [name.slice(8)] : [],
  );
  if (running.length === 0) {
    throw new Error(
      '/healthz named no cluster: the token is not one the running stage accepts (an Admin token)',
    );
  }
  const dropped = running.filter((name) => !check.clusters.includes(name));
  const occupied: string[] = [];
  for (const cluster of dropped) {
    const drain = await answer(`${check.url}/v1/admin/drain?limit=100`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ cluster, dry_run: true }),
    });
    const page = drain.body as {
      items?: { id: string }[];
      next_cursor?: string | null;
      detail?: string;
    } | null;
    if (drain.status !== 200 || !page?.items) {
      throw new Error(
        `cannot list cluster "${cluster}"'s compositions: the drain's dry run answered ${drain.status} ${page?.detail ?? ''}`.trim(),
      );
    }
    if (page.items.length > 0) {
      const ids = page.items.slice(0, 5).map((item) => item.id);
      const more = page.next_cursor || page.items.length > ids.length ? ', …' : '';
      occupied.push(
        `cluster "${cluster}" still has live compositions (${ids.join(', ')}${more}): svc admin drain --cluster ${cluster}`,
      );
    }
  }
  if (occupied.length > 0) {
    throw new Error(
      `the deploy drops clusters that previews still run on; drain them first, or keep them in the stage's settings: ${occupied.join('; ')}`,
    );
  }
  log(
    `cluster check passed: ${dropped.length ? `dropped ${dropped.map((c) => `"${c}"`).join(', ')}, empty` : 'no cluster dropped'}`,
  );
}

async function answer(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch (error) {
    return { status: 0, body: { error: String(error) } };
  }
}

/** The stage file's clusters, and the running stage's URL (its public origin unless told). */
async function beforeDeploy(stage: string, url: string | undefined): Promise<void> {
  const { publicOrigin, stageClusters } = await import('./settings.ts');
  const { default: settings } = (await import(`../stacks/${stage}.ts`)) as {
    default: import('../stacks/schema.ts').StageSettings;
  };
  const token = process.env.SVC_API_TOKEN;
  if (!token) throw new Error('SVC_API_TOKEN must hold an Admin token of the running stage');
  // Without a publicOrigin or a domain the stage answers at its API's own URL: the caller knows it.
  const running = url ?? publicOrigin(settings);
  if (!running) throw new Error(`stage "${stage}" names neither publicOrigin nor domain: pass --url <api>`);
  await checkClusterRemoval({
    url: running.replace(/\/$/, ''),
    token,
    clusters: stageClusters(settings).map((c) => c.name),
  });
}

function afterDeploy(values: { commit?: string; url?: string; outputs?: string }): Promise<void> {
  const outputs = JSON.parse(readFileSync(values.outputs ?? '.sst/outputs.json', 'utf8')) as { api?: string };
  const url = values.url ?? outputs.api;
  if (!url || !values.commit) {
    console.error(
      'usage: node infra/deploy-check.ts --commit <sha> [--url <api> | --outputs .sst/outputs.json]\n' +
        '       SVC_API_TOKEN=<admin token> node infra/deploy-check.ts --stage <stage> [--url <api>]  (before the deploy)',
    );
    process.exit(2);
  }
  return checkDeployment({ url: url.replace(/\/$/, ''), commit: values.commit });
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      commit: { type: 'string' },
      url: { type: 'string' },
      outputs: { type: 'string' },
      stage: { type: 'string' },
    },
  });
  try {
    await (values.stage ? beforeDeploy(values.stage, values.url) : afterDeploy(values));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
