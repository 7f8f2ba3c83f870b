/**
 * The frontend use cases behind `/v1/projects/{project}/frontends/{frontend}/revisions/{revision}/…`:
 * bind a frontend revision to a composition, resolve the binding (waiting, bounded, for the
 * composition to be ready) and publish it. The checks recorded for a binding are the checks
 * domain's (checks/commands.ts).
 */
import { authorize } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import type { Identity } from '../auth/identity.ts';
import type { AuditStore } from '../auth/ports.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import { requireProject } from '../catalog/service.ts';
import { addSeconds, type Clock } from '../clock.ts';
import { type CompositionRecord, effectivePhase, Phase } from '../compositions/model.ts';
import type { CompositionStore } from '../compositions/ports.ts';
import { ErrorCode, ProblemError, validationFailed } from '../errors.ts';
import { bindingRetentionDays, maxResolveWaitSeconds, ResolveOutcome, resolvePollMs } from './model.ts';
import type { FrontendStore } from './ports.ts';
import type { BindFrontendBody, FrontendBinding, FrontendResolution, PublishFrontendBody } from './schema.ts';

export interface FrontendDeps {
  audit: AuditStore;
  frontends: FrontendStore;
  compositions: CompositionStore;
  catalog: CatalogStore;
  clock: Clock;
}

/** Which binding: the path of every frontend route. */
export interface BindingRef {
  project: string;
  frontend: string;
  revision: string;
}

const maxConflictRetries = 5;
const ended = new Set<string>([Phase.Destroying, Phase.Destroyed, Phase.Expired]);

function noBinding(ref: BindingRef): ProblemError {
  return new ProblemError(
    ErrorCode.NotFound,
    `frontend "${ref.frontend}" revision ${ref.revision} is not bound in project "${ref.project}"; bind it to a composition first`,
  );
}

export async function requireBinding(
  deps: Pick<FrontendDeps, 'frontends' | 'clock'>,
  ref: BindingRef,
): Promise<FrontendBinding> {
  const binding = await deps.frontends.get(ref.project, ref.frontend, ref.revision, deps.clock.now());
  if (!binding) throw noBinding(ref);
  return binding;
}

export function versionMismatch(expected: number, current: number): ProblemError {
  return new ProblemError(
    ErrorCode.VersionMismatch,
    `expected_version is ${expected} but the binding is at version ${current}; read it again.`,
    { errors: [{ path: '/expected_version', message: `current version is ${current}` }] },
  );
}

/**
 * PUT: binds the revision to a composition of the same project that is not ending. Binding it to
 * the composition it is already bound to changes nothing; to another one gives the next version and
 * clears what was published (it ran against the previous composition).
 */
export async function bind(
  deps: FrontendDeps,
  identity: Identity,
  ref: BindingRef,
  body: BindFrontendBody,
): Promise<{ created: boolean; binding: FrontendBinding }> {
  await requireProject(deps, ref.project);
  const found = await deps.compositions.get(body.composition_id);
  // Another project's composition answers as one that does not exist: its existence is not the
  // caller's to learn, whichever projects they may read.
  const composition = found?.project === ref.project ? found : null;
  if (!composition) {
    throw new ProblemError(
      ErrorCode.UnknownReference,
      `composition "${body.composition_id}" not found in project "${ref.project}"`,
      { errors: [{ path: '/composition_id', message: 'unknown composition' }] },
    );
  }
  const phase = effectivePhase(composition, deps.clock.now());
  if (ended.has(phase)) {
    throw validationFailed([
      { path: '/composition_id', message: `composition ${composition.id} is ${phase}; bind a live one` },
    ]);
  }
  for (let attempt = 0; attempt < maxConflictRetries; attempt++) {
    const now = deps.clock.now();
    const current = await deps.frontends.get(ref.project, ref.frontend, ref.revision, now);
    if (current?.composition_id === composition.id) return { created: false, binding: current };
    const at = now.toISOString();
    const binding: FrontendBinding = {
      ...ref,
      composition_id: composition.id,
      version: (current?.version ?? 0) + 1,
      published: null,
      bound_by: identity.subject,
      created_at: current?.created_at ?? at,
      updated_at: at,
      expires_at: addSeconds(new Date(composition.expires_at), bindingRetentionDays * 86_400).toISOString(),
    };
    if (await deps.frontends.put(binding, current?.version ?? 0, now)) {
      return { created: current === null, binding };
    }
  }
  throw new ProblemError(ErrorCode.VersionMismatch, 'The binding kept changing; read it again and retry.');
}

function resolution(
  binding: FrontendBinding,
  record: CompositionRecord | null,
  now: Date,
): FrontendResolution {
  if (!record) {
    return {
      binding,
      composition: null,
      outcome: ResolveOutcome.Ended,
      message: `composition ${binding.composition_id} no longer exists; bind the revision to another composition`,
    };
  }
  const phase = effectivePhase(record, now);
  const composition = {
    id: record.id,
    phase,
    generation: record.generation,
    observed_generation: record.observed_generation,
    url: record.public_url,
    ready: record.public_ready,
  };
  if (phase === Phase.Ready) {
    return { binding, composition, outcome: ResolveOutcome.Ready, message: `ready at ${record.public_url}` };
  }
  if (phase === Phase.Failed) {
    const why = record.observed.blockers.map((b) => b.message).join('; ');
    return {
      binding,
      composition,
      outcome: ResolveOutcome.Failed,
      message: `composition ${record.id} failed${why ? `: ${why}` : ''}; it will not become ready on its own`,
    };
  }
  if (ended.has(phase)) {
    return {
      binding,
      composition,
      outcome: ResolveOutcome.Ended,
      message: `composition ${record.id} is ${phase}; it will never be ready`,
    };
  }
  return {
    binding,
    composition,
    outcome: ResolveOutcome.Pending,
    message: `composition ${record.id} is ${phase}`,
  };
}

/**
 * GET: the binding with its composition's preview URL and readiness. With `waitSeconds`, re-reads
 * the composition every 250 ms until it is ready, failed or ended, or the wait passes (at most 20 s:
 * a longer wait is the client's loop, see the CLI's `frontend resolve --timeout`).
 */
export async function resolve(
  deps: FrontendDeps,
  ref: BindingRef,
  waitSeconds: number,
): Promise<FrontendResolution> {
  const deadline = Date.now() + Math.min(waitSeconds, maxResolveWaitSeconds) * 1000;
  for (;;) {
    const binding = await requireBinding(deps, ref);
    const answer = resolution(binding, await deps.compositions.get(binding.composition_id), deps.clock.now());
    const left = deadline - Date.now();
    if (answer.outcome !== ResolveOutcome.Pending || left <= 0) return answer;
    await new Promise((wake) => setTimeout(wake, Math.min(resolvePollMs, left)));
  }
}

/** POST …/publish: records where the revision is published, if `expected_version` is current. */
export async function publish(
  deps: FrontendDeps,
  identity: Identity,
  ref: BindingRef,
  body: PublishFrontendBody,
): Promise<FrontendBinding> {
  authorize(identity, 'frontend:publish', { project: ref.project, repository: null });
  const binding = await requireBinding(deps, ref);
  if (binding.version !== body.expected_version)
    throw versionMismatch(body.expected_version, binding.version);
  const now = deps.clock.now();
  const at = now.toISOString();
  const next: FrontendBinding = {
    ...binding,
    version: binding.version + 1,
    published: { url: body.url, published_at: at, published_by: identity.subject },
    updated_at: at,
  };
  if (!(await deps.frontends.put(next, binding.version, now))) {
    const current = await deps.frontends.get(ref.project, ref.frontend, ref.revision, now);
    if (!current) throw noBinding(ref);
    throw versionMismatch(body.expected_version, current.version);
  }
  await recordAudit(deps, identity, {
    action: 'frontend.published',
    project: ref.project,
    target: `${ref.frontend}@${ref.revision}`,
    data: { url: body.url, version: next.version },
  });
  return next;
}
