/**
 * After a deploy, the deployed stage must answer with what was deployed: `GET /version` reports the
 * commit, and `GET /healthz` answers 200 with every dependency `ok`. A freshly deployed function
 * may take a moment to answer (and an old instance may still be serving), so each is asked again
 * until it holds or the attempts run out. The deploy workflow runs it after each stage:
 * `node infra/deploy-check.ts --commit <sha>` (the API's URL from `.sst/outputs.json`).
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

async function answer(url: string): Promise<{ status: number; body: unknown }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch (error) {
    return { status: 0, body: { error: String(error) } };
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { commit: { type: 'string' }, url: { type: 'string' }, outputs: { type: 'string' } },
  });
  const outputs = JSON.parse(readFileSync(values.outputs ?? '.sst/outputs.json', 'utf8')) as { api?: string };
  const url = values.url ?? outputs.api;
  if (!url || !values.commit) {
    console.error(
      'usage: node infra/deploy-check.ts --commit <sha> [--url <api> | --outputs .sst/outputs.json]',
    );
    process.exit(2);
  }
  try {
    await checkDeployment({ url: url.replace(/\/$/, ''), commit: values.commit });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
