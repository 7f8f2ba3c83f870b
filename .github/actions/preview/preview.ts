/**
 * The packaged CI step: `create` publishes the job's build (or takes a published one), creates a
 * preview overriding one component with it under an idempotency key derived from the run, waits
 * until it is ready and reports its id and URL; `destroy` removes it. The GitHub Action beside this
 * file (and its `destroy` companion) and the GitLab template `.gitlab/preview.gitlab-ci.yml` run
 * it; docs/ci.md says how. Node built-ins only: it runs from the action's checkout, where nothing
 * is installed.
 *
 * Exit codes as the svc CLI's: 0 done, 1 refused or failed, 2 a bad input (named, nothing sent),
 * 3 not ready in time, 4 a conflict, 5 authentication.
 */
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';

type Env = Record<string, string | undefined>;

class StepError extends Error {
  override name = 'StepError';
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

const usage = (message: string) => new StepError(message, 2);

/** The settings of `create`, read from the environment the action or template maps its inputs to. */
interface CreateSettings {
  apiUrl: string;
  token: string | null;
  project: string;
  baseline: string;
  component: string;
  name: string;
  ttl: string;
  waitSeconds: number;
  idempotencyKey: string;
  /** An image to publish as the commit's build, or the id of a build published already. */
  selection: { image: string; repository: string; commit: string; ref: string } | { buildId: string };
}

function required(env: Env, name: string, input: string): string {
  const value = env[name]?.trim();
  if (!value) throw usage(`input ${input} is required (${name} is empty)`);
  return value;
}

/** `30s`, `5m`, `1h` or a number of seconds. */
function durationSeconds(text: string, input: string): number {
  const match = /^(\d{1,5})(s|m|h)?$/.exec(text.trim());
  if (!match)
    throw usage(`input ${input} must be a duration such as 90s, 5m or 1h (got ${JSON.stringify(text)})`);
  const factor = { s: 1, m: 60, h: 3600 }[match[2] ?? 's'] ?? 1;
  const seconds = Number(match[1]) * factor;
  if (seconds < 1 || seconds > 3600) throw usage(`input ${input} must be from 1s to 1h`);
  return seconds;
}

/**
 * The same run, retried, sends the same key and gets the same preview back; another run, or a
 * re-run (a new attempt), gets a preview of its own. Over 128 printable characters, a digest.
 */
function runIdempotencyKey(run: string, project: string, component: string): string {
  const key = `${run}-${project}-${component}`;
  if (key.length <= 128 && /^[\x20-\x7e]+$/.test(key)) return key;
  return `ci-${createHash('sha256').update(key).digest('hex')}`;
}

function selectionOf(env: Env): CreateSettings['selection'] {
  const image = env.PREVIEW_IMAGE?.trim();
  const buildId = env.PREVIEW_BUILD_ID?.trim();
  if (image && buildId) throw usage('inputs image and build-id exclude each other: give one');
  if (buildId) return { buildId };
  if (!image) throw usage('input image (a digest-pinned image the job pushed) or build-id is required');
  return {
    image,
    repository: required(env, 'PREVIEW_REPOSITORY', 'repository'),
    commit: required(env, 'PREVIEW_COMMIT', 'commit'),
    ref: required(env, 'PREVIEW_REF', 'ref'),
  };
}

function createSettings(env: Env): CreateSettings {
  const project = required(env, 'PREVIEW_PROJECT', 'project');
  const component = required(env, 'PREVIEW_COMPONENT', 'component');
  const run = required(env, 'PREVIEW_RUN', 'run');
  return {
    apiUrl: required(env, 'SVC_API_URL', 'api-url').replace(/\/+$/, ''),
    token: env.SVC_API_TOKEN?.trim() || null,
    project,
    baseline: env.PREVIEW_BASELINE?.trim() || 'staging',
    component,
    name: env.PREVIEW_NAME?.trim() || `ci-${env.PREVIEW_RUN_NUMBER?.trim() || 'run'}`,
    ttl: env.PREVIEW_TTL?.trim() || '2h',
    waitSeconds: durationSeconds(env.PREVIEW_WAIT_TIMEOUT?.trim() || '5m', 'wait-timeout'),
    idempotencyKey: env.PREVIEW_IDEMPOTENCY_KEY?.trim() || runIdempotencyKey(run, project, component),
    selection: selectionOf(env),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON read field by field
type Json = any;

/** A problem answer as one line: its code, detail and each field it names (all untrusted text). */
function problemLine(status: number, body: Json): string {
  const fields = Array.isArray(body?.errors)
    ? body.errors.map((e: Json) => ` ${String(e?.path)}: ${String(e?.message)}`).join(';')
    : '';
  return `${status} ${String(body?.code ?? 'error')}: ${String(body?.detail ?? body ?? '')}${fields}`;
}

/** JSON, or the text itself when something other than the API answered (a proxy's error page). */
function parsed(text: string): Json {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text.slice(0, 200);
  }
}

function exitCodeOf(status: number): number {
  if (status === 401) return 5;
  if (status === 403) return 8;
  return status === 409 ? 4 : 1;
}

/** One call; a 429, a 5xx or a lost connection is retried (every call here is safe to repeat). */
async function call(
  settings: Pick<CreateSettings, 'apiUrl' | 'token'>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  for (let attempt = 1; ; attempt++) {
    let response: Response | null = null;
    try {
      response = await fetch(`${settings.apiUrl}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(settings.token ? { authorization: `Bearer ${settings.token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      if (attempt >= 3)
        throw new StepError(`cannot reach the API at ${settings.apiUrl}: ${(error as Error).message}`, 1);
    }
    if (response && response.status !== 429 && response.status < 500) {
      return { status: response.status, body: parsed(await response.text()) };
    }
    if (response && attempt >= 3)
      throw new StepError(`${method} ${path}: ${problemLine(response.status, await response.text())}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
  }
}

function expectOk(what: string, answer: { status: number; body: Json }) {
  if (answer.status >= 400)
    throw new StepError(
      `${what} refused: ${problemLine(answer.status, answer.body)}`,
      exitCodeOf(answer.status),
    );
  return answer.body;
}

async function buildIdOf(settings: CreateSettings): Promise<string> {
  const { selection } = settings;
  if ('buildId' in selection) return selection.buildId;
  const published = await call(
    settings,
    'POST',
    `/v1/projects/${encodeURIComponent(settings.project)}/builds`,
    {
      component: settings.component,
      repository: selection.repository,
      commit_sha: selection.commit,
      ref: selection.ref,
      image: selection.image,
    },
  );
  return expectOk('publishing the build', published).id;
}

/** Polls the status until ready; failed, destroyed or expired end it at once, with the recorded blockers. */
async function waitUntilReady(settings: CreateSettings, id: string): Promise<void> {
  const deadline = Date.now() + settings.waitSeconds * 1000;
  let phase = 'unknown';
  while (Date.now() < deadline) {
    const status = expectOk(
      'reading the status',
      await call(settings, 'GET', `/v1/compositions/${id}/status`),
    );
    phase = String(status.phase);
    if (phase === 'ready') return;
    if (['failed', 'destroying', 'destroyed', 'expired'].includes(phase)) {
      const diagnosis = await call(settings, 'GET', `/v1/compositions/${id}/diagnosis`);
      const blockers = (diagnosis.body?.blockers ?? []).map(
        (b: Json) => `${String(b?.code)}: ${String(b?.message)}`,
      );
      throw new StepError(`preview ${id} is ${phase}${blockers.length ? `: ${blockers.join('; ')}` : ''}`, 1);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2000, Math.max(0, deadline - Date.now()))));
  }
  throw new StepError(
    `preview ${id} is still ${phase} after ${settings.waitSeconds}s; see svc composition diagnosis ${id}`,
    3,
  );
}

/** GitHub's step outputs and job summary, a GitLab dotenv report: whichever the runner gave. */
function report(
  env: Env,
  result: { composition_id: string; preview_url: string; build_id: string; expires_at: string },
) {
  if (env.GITHUB_OUTPUT) {
    appendFileSync(
      env.GITHUB_OUTPUT,
      `composition-id=${result.composition_id}\npreview-url=${result.preview_url}\nbuild-id=${result.build_id}\n`,
    );
  }
  if (env.GITHUB_STEP_SUMMARY) {
    appendFileSync(
      env.GITHUB_STEP_SUMMARY,
      `### Preview ready\n\n${result.preview_url}\n\n| composition | build | expires |\n| --- | --- | --- |\n| \`${result.composition_id}\` | \`${result.build_id}\` | ${result.expires_at} |\n`,
    );
  }
  if (env.PREVIEW_DOTENV) {
    appendFileSync(
      env.PREVIEW_DOTENV,
      `SVC_COMPOSITION_ID=${result.composition_id}\nSVC_PREVIEW_URL=${result.preview_url}\nSVC_BUILD_ID=${result.build_id}\n`,
    );
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function create(env: Env): Promise<void> {
  const settings = createSettings(env);
  const buildId = await buildIdOf(settings);
  const body = {
    project: settings.project,
    baseline: settings.baseline,
    name: settings.name,
    ttl: settings.ttl,
    overrides: { [settings.component]: { build_id: buildId } },
  };
  const created = expectOk(
    'creating the preview',
    await call(settings, 'POST', '/v1/compositions', body, { 'idempotency-key': settings.idempotencyKey }),
  );
  const id = String(created.id);
  process.stderr.write(
    `preview ${id} created (key ${settings.idempotencyKey}); waiting up to ${settings.waitSeconds}s\n`,
  );
  await waitUntilReady(settings, id);
  const endpoints = expectOk(
    'reading the endpoints',
    await call(settings, 'GET', `/v1/compositions/${id}/endpoints`),
  );
  report(env, {
    composition_id: id,
    preview_url: String(endpoints.endpoints.public.url),
    build_id: buildId,
    expires_at: String(created.expires_at),
  });
}

async function destroy(env: Env): Promise<void> {
  const settings = {
    apiUrl: required(env, 'SVC_API_URL', 'api-url').replace(/\/+$/, ''),
    token: env.SVC_API_TOKEN?.trim() || null,
  };
  const id = required(env, 'PREVIEW_COMPOSITION_ID', 'composition-id');
  if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(id))
    throw usage(`input composition-id is not a composition id (got ${JSON.stringify(id)})`);
  const answer = await call(settings, 'DELETE', `/v1/compositions/${id}`);
  // Gone already (destroyed, expired and swept, or never created) is what this step wants.
  if (answer.status !== 404 && answer.status >= 400)
    throw new StepError(
      `destroying ${id} refused: ${problemLine(answer.status, answer.body)}`,
      exitCodeOf(answer.status),
    );
  process.stdout.write(
    `${JSON.stringify({ composition_id: id, phase: answer.status === 404 ? 'gone' : String(answer.body.phase) })}\n`,
  );
}

const commands: Record<string, (env: Env) => Promise<void>> = { create, destroy };

if (import.meta.main) {
  const command = commands[process.argv[2] ?? ''];
  try {
    if (!command)
      throw usage(`usage: node preview.ts create|destroy (got ${JSON.stringify(process.argv[2] ?? '')})`);
    await command(process.env);
  } catch (error) {
    const known = error instanceof StepError;
    process.stderr.write(`preview: ${known ? error.message : String((error as Error).stack ?? error)}\n`);
    process.exitCode = known ? error.exitCode : 1;
  }
}
