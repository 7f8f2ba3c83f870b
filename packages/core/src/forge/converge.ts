/**
 * The one rule of pull-request previews, level-triggered: from the pull request, the policy, the
 * preview record, the builds published for the head commit and the composition as they are now,
 * the next state and the one action that moves towards it. Webhook processing, build publication,
 * the reconciliation sweep, stop and restart all call it, so a missed, duplicated or reordered
 * delivery changes nothing: the same observation always gives the same answer.
 */
import { Phase } from '../compositions/model.ts';
import { type PreviewPolicy, type PreviewRecord, PreviewState, type PullRequest } from './model.ts';

/** Why a pull request should have no preview now (also restart's refusal reasons). */
export const Unwanted = {
  PolicyMissing: 'policy_missing',
  PolicyDisabled: 'policy_disabled',
  /** The app's installation on the repository's account is suspended: the forge refuses its calls. */
  InstallationSuspended: 'installation_suspended',
  PullRequestGone: 'pull_request_gone',
  PullRequestClosed: 'pull_request_closed',
  LabelMissing: 'label_missing',
  ForkNotAllowed: 'fork_not_allowed',
  StoppedByUser: 'stopped_by_user',
} as const;
export type Unwanted = (typeof Unwanted)[keyof typeof Unwanted];

export interface ObservedComposition {
  /** The effective phase (`expired` past its TTL). */
  phase: Phase;
  /** component → build id of the overrides it runs (or is rolling out). */
  builds: Record<string, string>;
}

export interface Observation {
  policy: PreviewPolicy | null;
  /** null: the forge does not know it (deleted, or the app was uninstalled), or it cannot be read (suspended). */
  pr: PullRequest | null;
  /** The installation on the repository's account is suspended. */
  suspended: boolean;
  preview: PreviewRecord | null;
  /** Builds published for the head commit, per component the policy names; a missing one is not published yet. */
  builds: Record<string, string>;
  /** null: no composition, or the record names one that was never created. */
  composition: ObservedComposition | null;
}

export type Action =
  | { kind: 'none' }
  | { kind: 'create'; builds: Record<string, string> }
  | { kind: 'update'; builds: Record<string, string> }
  | { kind: 'destroy' }
  /** A composition operation is under way: look again shortly. */
  | { kind: 'poll' };

export interface Decision {
  /** null: leave nothing behind (no record is written). */
  state: PreviewState | null;
  action: Action;
  /** Why the preview is not wanted, when it is not. */
  unwanted: Unwanted | null;
}

/** The first reason the pull request should have no preview, or null when it should have one. */
export function unwantedBecause(
  policy: PreviewPolicy | null,
  pr: PullRequest | null,
  suppressed: boolean,
  suspended = false,
): Unwanted | null {
  if (!policy) return Unwanted.PolicyMissing;
  if (!policy.enabled) return Unwanted.PolicyDisabled;
  if (suspended) return Unwanted.InstallationSuspended;
  if (!pr) return Unwanted.PullRequestGone;
  if (!pr.open) return Unwanted.PullRequestClosed;
  if (!pr.labels.includes(policy.trigger_label)) return Unwanted.LabelMissing;
  if (pr.fork && !policy.fork_pull_requests) return Unwanted.ForkNotAllowed;
  if (suppressed) return Unwanted.StoppedByUser;
  return null;
}

/** The builds of the head commit for every policy component, or null while one is missing. */
function completeBuilds(policy: PreviewPolicy | null, builds: Record<string, string>) {
  if (!policy) return null;
  const selected: Record<string, string> = {};
  for (const component of policy.components) {
    const id = builds[component];
    if (id === undefined) return null;
    selected[component] = id;
  }
  return selected;
}

export const sameBuilds = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, id]) => b[k] === id);

const inProgress = (phase: Phase) =>
  phase === Phase.Created || phase === Phase.Provisioning || phase === Phase.Updating;

const decision = (
  state: PreviewState | null,
  action: Action,
  unwanted: Unwanted | null = null,
): Decision => ({
  state,
  action,
  unwanted,
});

export function converge(observed: Observation): Decision {
  const { policy, pr, preview } = observed;
  const restart = preview?.restart_pending ?? false;
  const expiredHere =
    preview !== null &&
    preview.deployed_sha !== null &&
    preview.deployed_sha === pr?.head_sha &&
    preview.state !== PreviewState.Stopping &&
    preview.state !== PreviewState.Stopped;
  return decide(
    {
      unwanted: unwantedBecause(policy, pr, preview?.suppressed ?? false, observed.suspended),
      wanted: completeBuilds(policy, observed.builds),
      state: preview?.state ?? null,
      restart,
      expiredHere,
    },
    observed.composition,
  );
}

/** What one composition's owner (a pull request, or a change of several) wants, as it is now. */
export interface Wanting {
  unwanted: Unwanted | null;
  /** The overrides it should run; null while a build it needs is not published yet. */
  wanted: Record<string, string> | null;
  /** The state recorded so far; null: nothing recorded. */
  state: PreviewState | null;
  restart: boolean;
  /** It last composed what it still wants (and was not stopped): a composition gone since expired. */
  expiredHere: boolean;
}

/** The next state and action of a composition's owner, from what it wants and the composition now. */
export function decide(owner: Wanting, composition: ObservedComposition | null): Decision {
  const { unwanted, wanted, restart } = owner;
  if (composition && composition.phase !== Phase.Destroyed) {
    if (composition.phase === Phase.Destroying) {
      const ours = owner.state === PreviewState.Stopping || owner.state === PreviewState.Restarting;
      // The expiry sweep (or a generic delete) got there first: nothing left to do once it is gone.
      return decision(ours ? owner.state : PreviewState.Expired, { kind: 'poll' }, unwanted);
    }
    if (unwanted) return decision(PreviewState.Stopping, { kind: 'destroy' }, unwanted);
    if (restart) return decision(PreviewState.Restarting, { kind: 'destroy' });
    if (composition.phase === Phase.Expired) return decision(PreviewState.Expired, { kind: 'none' });
    if (inProgress(composition.phase)) return decision(PreviewState.Deploying, { kind: 'poll' });
    // Ready or failed: never an older build. Until the head commit's build is published, the
    // preview keeps what it runs and says it is waiting.
    if (!wanted) return decision(PreviewState.WaitingForBuild, { kind: 'none' });
    if (!sameBuilds(wanted, composition.builds)) {
      return decision(PreviewState.Deploying, { kind: 'update', builds: wanted });
    }
    return decision(composition.phase === Phase.Ready ? PreviewState.Ready : PreviewState.Failed, {
      kind: 'none',
    });
  }

  // No composition runs (never made, or destroyed).
  if (unwanted) {
    // A pull request closed (or unlabelled) before its preview existed leaves nothing behind.
    return decision(owner.state !== null ? PreviewState.Stopped : null, { kind: 'none' }, unwanted);
  }
  if (composition?.phase === Phase.Destroyed && !restart && owner.expiredHere) {
    return decision(PreviewState.Expired, { kind: 'none' });
  }
  if (!wanted) return decision(PreviewState.WaitingForBuild, { kind: 'none' });
  return decision(PreviewState.Deploying, { kind: 'create', builds: wanted });
}
