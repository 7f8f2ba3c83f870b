import type { AuditStore } from '../auth/audit.ts';
import { grantsOfRole, Role } from '../auth/identity.ts';
import type { CompositionDeps } from '../compositions/deps.ts';
import type { ForgePort, ForgeStore } from './ports.ts';

export interface ForgeSettings {
  /** Seconds between looks at a composition whose operation is under way. */
  pollSeconds: number;
  /** Seconds after which a stored delivery still unfinished is dispatched again by the sweep. */
  dispatchGraceSeconds: number;
  /** How long the webhook waits for the queue before answering anyway (the sweep dispatches later). */
  enqueueTimeoutMs: number;
  /** Receives after which a delivery that keeps failing is recorded as failed. */
  maxAttempts: number;
}

export const defaultForgeSettings: ForgeSettings = {
  pollSeconds: 5,
  dispatchGraceSeconds: 30,
  enqueueTimeoutMs: 800,
  maxAttempts: 5,
};

/** What the forge use cases need: the composition use cases' dependencies, the forge and its store. */
export interface ForgeDeps extends CompositionDeps {
  /** Policy changes are audited. */
  audit: AuditStore;
  forge: ForgePort | null;
  forgeStore: ForgeStore;
  forgeSettings: ForgeSettings;
}

/** Pull-request automation acts as a system caller of kind `forge`, with admin grants everywhere. */
export function forgeCaller(subject: string) {
  return { actor: { kind: 'forge' as const, subject }, grants: grantsOfRole(Role.Admin) };
}
