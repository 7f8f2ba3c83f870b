/**
 * A test result recorded against a composition (CI ran its tests against the preview URL). It
 * joins the composition's verification like a frontend check: with the fingerprint of what it ran
 * against, stale once the baseline or the generation moves on.
 */
import * as v from 'valibot';
import type { Identity } from '../auth/identity.ts';
import { AuditAction } from '../auth/model.ts';
import type { AuditStore } from '../auth/ports.ts';
import { requireComposition } from '../compositions/reads.ts';
import { storeResult } from '../frontends/service.ts';
import { CheckKind, CheckStatus, type CheckView } from '../verification/model.ts';
import type { InsightDeps } from './ports.ts';

export const CompositionCheckBody = v.strictObject({
  /** The composition generation the tests ran against. */
  composition_generation: v.pipe(v.number(), v.integer(), v.minValue(1)),
  status: v.picklist([CheckStatus.Passed, CheckStatus.Failed], 'status must be passed or failed'),
  message: v.pipe(v.string(), v.minLength(1, 'message must not be empty'), v.maxLength(1024)),
});
type CompositionCheckBody = v.InferOutput<typeof CompositionCheckBody>;

/** POST /v1/compositions/{id}/checks: 201 with the check as the verification list shows it. */
export async function recordCheck(
  deps: Pick<InsightDeps, 'compositions' | 'catalog' | 'clusters' | 'clock'> & { audit: AuditStore },
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
