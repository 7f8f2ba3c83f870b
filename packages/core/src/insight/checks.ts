/**
 * A test result recorded against a composition (CI ran its tests against the preview URL). It
 * joins the composition's verification like a frontend check: with the fingerprint of what it ran
 * against, stale once the baseline or the generation moves on.
 */
import * as v from 'valibot';
import type { Identity } from '../auth/identity.ts';
import { isTornDown } from '../compositions/model.ts';
import { requireComposition } from '../compositions/reads.ts';
import { validationFailed } from '../errors.ts';
import { fingerprintNow, frontendStaleReasons } from '../frontends/service.ts';
import { IdPrefix, newId } from '../names.ts';
import { parseOrThrow } from '../validation.ts';
import {
  CheckKind,
  type CheckRecord,
  CheckStatus,
  type CheckView,
  checkView,
} from '../verification/model.ts';
import type { InsightDeps } from './deps.ts';

export const CompositionCheckBody = v.strictObject({
  /** The composition generation the tests ran against. */
  composition_generation: v.pipe(v.number(), v.integer(), v.minValue(1)),
  status: v.picklist([CheckStatus.Passed, CheckStatus.Failed], 'status must be passed or failed'),
  message: v.pipe(v.string(), v.minLength(1, 'message must not be empty'), v.maxLength(1024)),
});

/** POST /v1/compositions/{id}/checks: 201 with the check as the verification list shows it. */
export async function recordCheck(
  deps: Pick<InsightDeps, 'compositions' | 'catalog' | 'cluster' | 'clock'>,
  caller: Pick<Identity, 'grants'>,
  id: string,
  input: unknown,
): Promise<CheckView> {
  const body = parseOrThrow(CompositionCheckBody, input);
  const record = await requireComposition(deps, caller, id, 'verification:record');
  if (body.composition_generation > record.generation) {
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
    kind: CheckKind.Test,
    generation: body.composition_generation,
    status: body.status,
    message: body.message,
    ran_at: deps.clock.now().toISOString(),
    target: record.public_url,
    http_status: null,
    coverage: {},
    fingerprint: current ?? { inputs: {}, hash: 'unreadable' },
    frontend: null,
  };
  await deps.compositions.putCheck(check);
  const gone = isTornDown(record.phase);
  return checkView(
    check,
    current,
    gone ? [`the composition is ${record.phase}`] : frontendStaleReasons(check, record, null),
  );
}
