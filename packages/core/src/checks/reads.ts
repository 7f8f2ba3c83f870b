/**
 * Verification as read: each check with its freshness now, from the fingerprint recomputed against
 * the cluster and, for frontend checks, the binding they ran for.
 */
import type { Identity } from '../auth/identity.ts';
import { type CompositionRecord, isTornDown } from '../compositions/model.ts';
import { requireComposition } from '../compositions/reads.ts';
import type { FrontendBinding } from '../frontends/schema.ts';
import type { Page, PageRequest } from '../paging.ts';
import { currentFingerprint } from './fingerprint.ts';
import { checkView, staleReasons } from './freshness.ts';
import { CheckKind, type CheckRecord, type Fingerprint, Freshness } from './model.ts';
import type { CheckDeps } from './ports.ts';
import type { CheckView } from './schema.ts';

/** What reading a check's freshness needs. */
type ReadDeps = Pick<CheckDeps, 'catalog' | 'clusters' | 'frontends' | 'clock'>;

export async function list(
  deps: ReadDeps & Pick<CheckDeps, 'checks' | 'compositions'>,
  caller: Identity,
  id: string,
  page: PageRequest,
): Promise<Page<CheckView>> {
  const record = await requireComposition(deps, caller, id, 'composition:read');
  const checks = await deps.checks.list(id, page);
  if (checks.items.length === 0) return { items: [], next_cursor: checks.next_cursor };
  if (isTornDown(record.phase)) {
    const reasons = [`the composition is ${record.phase}`];
    return {
      items: checks.items.map((check) => ({
        ...checkView(check, null),
        freshness: Freshness.Stale,
        stale_reasons: reasons,
      })),
      next_cursor: checks.next_cursor,
    };
  }
  const inputs = await freshnessInputs(deps, record, checks.items);
  return {
    items: checks.items.map((check) => checkViewNow(inputs, record, check)),
    next_cursor: checks.next_cursor,
  };
}

/** What the freshness of checks depends on beyond the checks: the fingerprint now and frontend bindings. */
export interface FreshnessInputs {
  /** Null when it could not be read. */
  current: Fingerprint | null;
  bindings: Bindings;
}

export async function freshnessInputs(
  deps: ReadDeps,
  record: CompositionRecord,
  checks: readonly CheckRecord[],
): Promise<FreshnessInputs> {
  const [current, bindings] = await Promise.all([
    currentFingerprint(deps, record),
    bindingsOf(deps, record, checks),
  ]);
  return { current, bindings };
}

/** A check as it reads now, for a composition not being torn down. */
export function checkViewNow(
  inputs: FreshnessInputs,
  record: CompositionRecord,
  check: CheckRecord,
): CheckView {
  const binding = bindingOf(inputs.bindings, check);
  return checkView(check, inputs.current, staleReasons(check, record, binding));
}

type Bindings = Map<string, FrontendBinding | null>;
const bindingKey = (name: string, revision: string) => `${name}#${revision}`;

/** The current binding of each frontend check's frontend revision, read once per revision. */
async function bindingsOf(
  deps: ReadDeps,
  record: CompositionRecord,
  checks: readonly CheckRecord[],
): Promise<Bindings> {
  const now = deps.clock.now();
  const wanted = new Map<string, { name: string; revision: string }>();
  for (const check of checks) {
    if (check.kind === CheckKind.Frontend && check.frontend) {
      wanted.set(bindingKey(check.frontend.name, check.frontend.revision), check.frontend);
    }
  }
  const entries = await Promise.all(
    [...wanted].map(
      async ([key, f]) => [key, await deps.frontends.get(record.project, f.name, f.revision, now)] as const,
    ),
  );
  return new Map(entries);
}

function bindingOf(bindings: Bindings, check: CheckRecord): FrontendBinding | null {
  return check.frontend
    ? (bindings.get(bindingKey(check.frontend.name, check.frontend.revision)) ?? null)
    : null;
}
