/**
 * The packaged CI step: `create` publishes the job's build (or takes a published one), creates a
 * preview overriding one component with it under an idempotency key derived from the run, waits
 * until it is ready and reports its id and URL; `destroy` removes it. The GitHub Action beside this
 * file (and its `destroy` companion) and the GitLab template `.gitlab/preview.gitlab-ci.yml` run
 * `preview.mjs`, this file bundled with `@svc/client` (`npm run build:client`): the action's
 * checkout has nothing installed, and the calls are the typed client's, checked against the
 * contract like the CLI's.
 *
 * Exit codes as the svc CLI's: 0 done, 1 refused or failed, 2 a bad input (named, nothing sent),
 * 3 not ready in time, 4 a conflict, 5 authentication, 8 forbidden.
 */
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { ApiError, ClientCode, createClient, type ServiceClient } from '@svc/client';
import { parseDuration } from '@svc/core/duration';

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

/** A duration as the CLI reads one (`90s`, `5m`, `1h`), from 1s to 1h. */
function waitSeconds(text: string): number {
  const seconds = parseDuration(text);
  if (seconds === null)
    throw usage(`input wait-timeout must be a duration such as 90s, 5m or 1h (got ${JSON.stringify(text)})`);
  if (seconds < 1 || seconds > 3600) throw usage('input wait-timeout must be from 1s to 1h');
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
    project,
    baseline: env.PREVIEW_BASELINE?.trim() || 'staging',
    component,
    name: env.PREVIEW_NAME?.trim() || `ci-${env.PREVIEW_RUN_NUMBER?.trim() || 'run'}`,
    ttl: env.PREVIEW_TTL?.trim() || '2h',
    waitSeconds: waitSeconds(env.PREVIEW_WAIT_TIMEOUT?.trim() || '5m'),
    idempotencyKey: env.PREVIEW_IDEMPOTENCY_KEY?.trim() || runIdempotencyKey(run, project, component),
    selection: selectionOf(env),
  };
}

function clientOf(env: Env): ServiceClient {
  return createClient({
    baseUrl: required(env, 'SVC_API_URL', 'api-url'),
    token: env.SVC_API_TOKEN?.trim() || null,
  });
}

/** The exit code of a refusal, as the CLI's: 401 → 5, 403 → 8, 409 → 4, a refused input → 2. */
function exitCodeOf(error: ApiError): number {
  if (error.code === ClientCode.InvalidInput) return 2;
  if (error.status === 401) return 5;
  if (error.status === 403) return 8;
  return error.status === 409 ? 4 : 1;
}

/**
 * A problem as one line: its status, code, detail, each field it names, and why a 401 refused the
 * token (revoked, expired), which only its challenge says (all untrusted text).
 */
function problemLine(error: ApiError): string {
  const fields = error.problem.errors.map((e) => ` ${e.path}: ${e.message}`).join(';');
  const why = error.challenge?.error_description ? ` ${error.challenge.error_description}` : '';
  return `${error.status ?? ''} ${error.code}: ${error.problem.detail}${fields}${why}`.trim();
}

const retried = new Set<string>([ClientCode.ApiUnreachable, ClientCode.ApiTimeout]);

/** One call, retried twice after a 429, a 5xx or no answer (every call here is safe to repeat). */
async function attempt<T>(what: string, call: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const transient = error.status === 429 || (error.status ?? 0) >= 500 || retried.has(error.code);
      if (!transient || tries >= 3)
        throw new StepError(`${what} refused: ${problemLine(error)}`, exitCodeOf(error));
      await new Promise((resolve) => setTimeout(resolve, 1000 * tries));
    }
  }
}

async function buildIdOf(svc: ServiceClient, settings: CreateSettings): Promise<string> {
  const { selection } = settings;
  if ('buildId' in selection) return selection.buildId;
  const build = await attempt('publishing the build', () =>
    svc.call('publishBuild', {
      path: { project: settings.project },
      body: {
        component: settings.component,
        repository: selection.repository,
        commit_sha: selection.commit,
        ref: selection.ref,
        image: selection.image,
      },
    }),
  );
  return build.id;
}

const ended = new Set(['failed', 'destroying', 'destroyed', 'expired']);

/** Polls the status until ready; failed, destroyed or expired end it at once, with the recorded blockers. */
async function waitUntilReady(svc: ServiceClient, settings: CreateSettings, id: string): Promise<void> {
  const deadline = Date.now() + settings.waitSeconds * 1000;
  let phase = 'unknown';
  while (Date.now() < deadline) {
    ({ phase } = await attempt('reading the status', () =>
      svc.call('getCompositionStatus', { path: { id } }),
    ));
    if (phase === 'ready') return;
    if (ended.has(phase)) {
      const { blockers } = await attempt('reading the diagnosis', () =>
        svc.call('getDiagnosis', { path: { id } }),
      );
      const reasons = blockers.map((b) => `${b.code}: ${b.message}`);
      throw new StepError(`preview ${id} is ${phase}${reasons.length ? `: ${reasons.join('; ')}` : ''}`, 1);
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
  const svc = clientOf(env);
  const buildId = await buildIdOf(svc, settings);
  const created = await attempt('creating the preview', () =>
    svc.call('createComposition', {
      body: {
        project: settings.project,
        baseline: settings.baseline,
        name: settings.name,
        ttl: settings.ttl,
        overrides: { [settings.component]: { build_id: buildId } },
      },
      headers: { 'Idempotency-Key': settings.idempotencyKey },
    }),
  );
  process.stderr.write(
    `preview ${created.id} created (key ${settings.idempotencyKey}); waiting up to ${settings.waitSeconds}s\n`,
  );
  await waitUntilReady(svc, settings, created.id);
  const { endpoints } = await attempt('reading the endpoints', () =>
    svc.call('getCompositionEndpoints', { path: { id: created.id } }),
  );
  report(env, {
    composition_id: created.id,
    preview_url: endpoints.public.url,
    build_id: buildId,
    expires_at: created.expires_at,
  });
}

async function destroy(env: Env): Promise<void> {
  const svc = clientOf(env);
  const id = required(env, 'PREVIEW_COMPOSITION_ID', 'composition-id');
  // Gone already (destroyed, expired and swept, or never created) is what this step wants.
  const destroyed = await attempt(`destroying ${id}`, () =>
    svc.call('destroyComposition', { path: { id } }).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }),
  );
  process.stdout.write(`${JSON.stringify({ composition_id: id, phase: destroyed?.phase ?? 'gone' })}\n`);
}

const commands: Record<string, (env: Env) => Promise<void>> = { create, destroy };

const command = commands[process.argv[2] ?? ''];
try {
  if (!command)
    throw usage(`usage: node preview.mjs create|destroy (got ${JSON.stringify(process.argv[2] ?? '')})`);
  await command(process.env);
} catch (error) {
  const known = error instanceof StepError;
  process.stderr.write(`preview: ${known ? error.message : String((error as Error).stack ?? error)}\n`);
  process.exitCode = known ? error.exitCode : 1;
}
