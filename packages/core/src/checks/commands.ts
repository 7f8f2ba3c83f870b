/**
 * Results someone ran against a composition and records: a frontend check (the bound frontend
 * revision checked against its composition) or a test result (CI ran its tests against the
 * preview URL). Each joins the composition's verification with the fingerprint of what it ran
 * against, stale once the baseline, the generation or the binding moves on.
 */
import { authorize } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import type { Identity } from '../auth/identity.ts';
import { AuditAction } from '../auth/model.ts';
import { type CompositionRecord, isTornDown } from '../compositions/model.ts';
import { requireComposition } from '../compositions/reads.ts';
import { validationFailed } from '../errors.ts';
import type { FrontendBinding } from '../frontends/schema.ts';
import { type BindingRef, requireBinding, versionMismatch } from '../frontends/service.ts';
import { IdPrefix, newId } from '../names.ts';
import { currentFingerprint } from './fingerprint.ts';
import { checkView, staleReasons } from './freshness.ts';
import { CheckKind, type CheckRecord, type Fingerprint } from './model.ts';
import type { CheckDeps } from './ports.ts';
import type { CheckView, CompositionCheckBody, FrontendCheckBody } from './schema.ts';

/** The fingerprint of a composition now, or a marker that never matches when it cannot be read. */
async function fingerprintNow(
  deps: Pick<CheckDeps, 'catalog' | 'clusters'>,
  record: CompositionRecord,
): Promise<Fingerprint | null> {
  return isTornDown(record.phase) ? null : currentFingerprint(deps, record);
}

/**
 * POST …/checks: records a frontend check result against a generation of the bound composition.
 * It joins that composition's verification list (kind `frontend`) with the fingerprint of what it
 * ran against, so a baseline change makes it stale like a routing check; so does a generation
 * other than the observed one, or a change of the binding.
 */
export async function recordFrontend(
  deps: CheckDeps,
  caller: Identity,
  ref: BindingRef,
  body: FrontendCheckBody,
): Promise<CheckView> {
  authorize(caller, 'frontend:check', { project: ref.project, repository: null });
  const binding = await requireBinding(deps, ref);
  if (binding.version !== body.expected_version)
    throw versionMismatch(body.expected_version, binding.version);
  const record = await requireComposition(deps, caller, binding.composition_id, 'frontend:check');
  return storeResult(
    deps,
    caller,
    record,
    binding,
    {
      kind: CheckKind.Frontend,
      generation: body.composition_generation,
      status: body.status,
      message: body.message,
      target: binding.published?.url ?? null,
      frontend: { name: ref.frontend, revision: ref.revision, version: binding.version },
    },
    { action: AuditAction.FrontendCheckRecorded, data: { frontend: ref.frontend, revision: ref.revision } },
  );
}

/**
 * Stores a result someone ran against a generation of the composition (a frontend check, a test
 * run), with the fingerprint of what it ran against, and answers it as the verification list shows
 * it. A generation the composition never had is a 422.
 */
async function storeResult(
  deps: Pick<CheckDeps, 'checks' | 'catalog' | 'clusters' | 'clock' | 'audit'>,
  caller: Identity,
  record: CompositionRecord,
  binding: FrontendBinding | null,
  result: Pick<CheckRecord, 'kind' | 'generation' | 'status' | 'message' | 'target' | 'frontend'>,
  audit: { action: AuditAction; data: Record<string, unknown> },
): Promise<CheckView> {
  if (result.generation > record.generation) {
    throw validationFailed([
      {
        path: '/composition_generation',
        message: `composition ${record.id} is at generation ${record.generation}`,
      },
    ]);
  }
  const current = await fingerprintNow(deps, record);
  const check: CheckRecord = {
    id: newId(IdPrefix.Check),
    composition_id: record.id,
    ...result,
    ran_at: deps.clock.now().toISOString(),
    http_status: null,
    coverage: {},
    fingerprint: current ?? { inputs: {}, hash: 'unreadable' },
  };
  await deps.checks.put(check);
  await recordAudit(deps, caller, {
    action: audit.action,
    project: record.project,
    target: record.id,
    data: { check_id: check.id, ...audit.data, status: check.status, generation: check.generation },
  });
  const gone = isTornDown(record.phase);
  return checkView(
    check,
    current,
    gone ? [`the composition is ${record.phase}`] : staleReasons(check, record, binding),
  );
}

/** POST /v1/compositions/{id}/checks: 201 with the check as the verification list shows it. */
export async function recordTest(
  deps: CheckDeps,
  caller: Identity,
  id: string,
  body: CompositionCheckBody,
): Promise<CheckView> {
  const record = await requireComposition(deps, caller, id, 'verification:record');
  return storeResult(
    deps,
    caller,
    record,
    null,
    {
      kind: CheckKind.Test,
      generation: body.composition_generation,
      status: body.status,
      message: body.message,
      target: record.public_url,
      frontend: null,
    },
    { action: AuditAction.TestResultRecorded, data: {} },
  );
}
