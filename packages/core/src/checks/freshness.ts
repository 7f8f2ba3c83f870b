/**
 * Whether a check still holds. Freshness is derived at read time by recomputing the fingerprint,
 * so a change to the baseline alone makes earlier proof stale without a new generation; a recorded
 * result (frontend or test) is also stale once the composition moved to another generation or the
 * binding it ran for changed.
 */
import type { CompositionRecord } from '../compositions/model.ts';
import type { FrontendBinding } from '../frontends/schema.ts';
import { CheckKind, type CheckRecord, type Fingerprint, Freshness } from './model.ts';
import type { CheckView } from './schema.ts';

/** Freshness of a check given the fingerprint recomputed now (null: inputs could not be read). */
export function freshness(
  check: CheckRecord,
  current: Fingerprint | null,
): { freshness: Freshness; stale_reasons: string[] } {
  if (current === null)
    return { freshness: Freshness.Unknown, stale_reasons: ['the cluster could not be read'] };
  if (current.hash === check.fingerprint.hash) return { freshness: Freshness.Fresh, stale_reasons: [] };
  const names = new Set([...Object.keys(check.fingerprint.inputs), ...Object.keys(current.inputs)]);
  const reasons = [...names]
    .filter((name) => check.fingerprint.inputs[name] !== current.inputs[name])
    .sort()
    .map((name) =>
      name in current.inputs
        ? name in check.fingerprint.inputs
          ? `${name} changed`
          : `${name} appeared`
        : `${name} disappeared`,
    );
  return { freshness: Freshness.Stale, stale_reasons: reasons };
}

/**
 * The check as answered. `staleBecause` are reasons known beyond the fingerprint (a frontend check
 * of another generation, a changed binding): they make the check stale whatever the fingerprint says.
 */
export function checkView(
  check: CheckRecord,
  current: Fingerprint | null,
  staleBecause: readonly string[] = [],
): CheckView {
  const { fingerprint: _, frontend, ...rest } = check;
  const derived = freshness(check, current);
  const verdict = staleBecause.length
    ? {
        freshness: Freshness.Stale,
        stale_reasons: [
          ...staleBecause,
          ...(derived.freshness === Freshness.Stale ? derived.stale_reasons : []),
        ],
      }
    : derived;
  return { ...rest, frontend: frontend ?? null, ...verdict };
}

/**
 * Why a recorded check (frontend or test) no longer holds, beyond its fingerprint: it ran against
 * another generation than the one observed now, or the binding it ran for has changed or gone.
 */
export function staleReasons(
  check: CheckRecord,
  record: Pick<CompositionRecord, 'observed_generation'>,
  binding: Pick<FrontendBinding, 'composition_id' | 'version'> | null,
): string[] {
  if (check.kind === CheckKind.Routing) return [];
  const reasons: string[] = [];
  if (check.generation !== record.observed_generation) {
    reasons.push(
      `generation: the check ran against generation ${check.generation}, the observed generation is ${record.observed_generation}`,
    );
  }
  const frontend = check.frontend;
  if (frontend) {
    const name = `frontend:${frontend.name}`;
    if (!binding) reasons.push(`${name} revision ${frontend.revision} is no longer bound`);
    else if (binding.composition_id !== check.composition_id)
      reasons.push(`${name} is now bound to ${binding.composition_id}`);
    else if (binding.version !== frontend.version)
      reasons.push(`${name} binding changed (version ${frontend.version}, now ${binding.version})`);
  }
  return reasons;
}
