/**
 * The rule of a change, level-triggered like `converge`: from each of its pull requests as the
 * forge says it is now (its policy, the builds published for its head commit), the change's record
 * and its composition, which pull requests belong to it, the overrides its one composition should
 * run (the union of theirs), or why it cannot be composed, and the one action that moves towards
 * it. A push is an update of that pull request's component(s), a join adds its override, a close
 * or unlabel removes it (the component returns to the baseline), the last one leaving destroys.
 */
import { Phase } from '../compositions/model.ts';
import { maxOverrides } from '../compositions/schema.ts';
import {
  type ChangeKey,
  type ChangeMember,
  type ChangeRefusal,
  groupOf,
  memberName,
  sameKey,
} from './change-model.ts';
import {
  type Decision,
  decide,
  type ObservedComposition,
  sameBuilds,
  Unwanted,
  unwantedBecause,
} from './converge.ts';
import { type PreviewPolicy, PreviewState, type PullRequest } from './model.ts';

/** Why a change cannot be composed: reported on every one of its pull requests. */
export const ChangeRefusalCode = {
  ProjectsDiffer: 'change_projects_differ',
  BaselinesDiffer: 'change_baselines_differ',
  ComponentConflict: 'change_component_conflict',
  TooManyOverrides: 'change_too_many_overrides',
} as const;

/** A pull request that may belong to the change (a recorded member, or the one an event named). */
export interface CandidateObservation {
  repository: string;
  number: number;
  /** The policy of its repository in effect; null when none. */
  policy: PreviewPolicy | null;
  /** null: gone, or unreadable (its installation is suspended). */
  pr: PullRequest | null;
  suspended: boolean;
  /** Builds published for its head commit, per component its policy names. */
  builds: Record<string, string>;
}

export interface ChangeObservation {
  key: ChangeKey;
  candidates: CandidateObservation[];
  /** The change as recorded; null: never recorded. */
  recorded: {
    state: PreviewState;
    suppressed: boolean;
    restart_pending: boolean;
    /** The overrides it last composed. */
    composed: Record<string, string>;
  } | null;
  composition: ObservedComposition | null;
}

/** What one pull request of the change is told. */
interface MemberOutcome extends ChangeMember {
  state: PreviewState;
  /** Its components whose build of its head commit is not published yet (it keeps what runs). */
  waiting: string[];
}

export interface ChangeDecision extends Decision {
  /** The pull requests that belong to the change now, in order of repository and number. */
  members: MemberOutcome[];
  refusal: ChangeRefusal | null;
  /** What the composition is made of: the project, baseline and TTL of its members' policies. */
  basis: { project: string; baseline: string; ttl: string } | null;
}

interface Member {
  candidate: CandidateObservation;
  policy: PreviewPolicy;
}

const byName = (a: Member, b: Member) =>
  a.candidate.repository.toLowerCase().localeCompare(b.candidate.repository.toLowerCase()) ||
  a.candidate.number - b.candidate.number;

/** Candidates that want a preview and still carry the change's key; each pull request once. */
function membersOf(key: ChangeKey, candidates: readonly CandidateObservation[]): Member[] {
  const members = new Map<string, Member>();
  for (const candidate of candidates) {
    const { policy, pr } = candidate;
    if (!policy || unwantedBecause(policy, pr, false, candidate.suspended) !== null) continue;
    if (!sameKey(groupOf(policy, pr), key)) continue;
    members.set(memberName(candidate).toLowerCase(), { candidate, policy });
  }
  return [...members.values()].sort(byName);
}

const durationUnit: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const seconds = (ttl: string) => Number(ttl.slice(0, -1)) * (durationUnit[ttl.slice(-1)] ?? 0);

/** The first reason the members cannot share one composition, naming the pull requests concerned. */
function refusalOf(members: readonly Member[]): ChangeRefusal | null {
  const [first] = members;
  if (!first) return null;
  const names = members.map((member) => memberName(member.candidate)).join(', ');
  if (members.some((member) => member.policy.project !== first.policy.project)) {
    return {
      code: ChangeRefusalCode.ProjectsDiffer,
      message: `the pull requests of this change (${names}) belong to different projects`,
    };
  }
  if (members.some((member) => member.policy.baseline !== first.policy.baseline)) {
    return {
      code: ChangeRefusalCode.BaselinesDiffer,
      message: `the pull requests of this change (${names}) preview against different baselines`,
    };
  }
  const overriddenBy = new Map<string, string>();
  for (const member of members) {
    for (const component of member.policy.components) {
      const other = overriddenBy.get(component);
      if (other !== undefined) {
        return {
          code: ChangeRefusalCode.ComponentConflict,
          message: `component ${component} is overridden by both ${other} and ${memberName(member.candidate)}`,
        };
      }
      overriddenBy.set(component, memberName(member.candidate));
    }
  }
  if (overriddenBy.size > maxOverrides) {
    return {
      code: ChangeRefusalCode.TooManyOverrides,
      message: `this change overrides ${overriddenBy.size} components (${[...overriddenBy.keys()].join(', ')}); at most ${maxOverrides} can be`,
    };
  }
  return null;
}

/**
 * The overrides the composition should run: each member's builds of its head commit; a member
 * still waiting for one keeps what the live composition runs for its components (a new member
 * adds nothing until its builds are all published; a composition gone runs nothing, so never an
 * older build). A live composition always gets an answer, so a leaver's override goes even while
 * the others wait; with none, null until something is ready to run.
 */
function wantedOverrides(members: readonly Member[], live: Record<string, string> | null) {
  const overrides: Record<string, string> = {};
  const waiting = new Map<Member, string[]>();
  for (const member of members) {
    const missing = member.policy.components.filter((component) => !member.candidate.builds[component]);
    waiting.set(member, missing);
    const source = missing.length === 0 ? member.candidate.builds : (live ?? {});
    const complete = member.policy.components.every((component) => source[component] !== undefined);
    if (!complete) continue;
    for (const component of member.policy.components) overrides[component] = source[component] as string;
  }
  return { overrides: live !== null || Object.keys(overrides).length > 0 ? overrides : null, waiting };
}

const outcome = (member: Member, state: PreviewState, waiting: string[] = []): MemberOutcome => ({
  repository: member.candidate.repository,
  number: member.candidate.number,
  components: [...member.policy.components],
  state,
  waiting,
});

/** The composition's project and baseline (the first member's: a refusal covers others), and the longest TTL. */
function basisOf(members: readonly Member[]): ChangeDecision['basis'] {
  const [first] = members;
  if (!first) return null;
  const ttl = members.map((member) => member.policy.ttl).reduce((a, b) => (seconds(b) > seconds(a) ? b : a));
  return { project: first.policy.project, baseline: first.policy.baseline, ttl };
}

/** States of the whole change that each of its pull requests shows as it is, waiting or not. */
const lifecycle = new Set<PreviewState>([
  PreviewState.Stopping,
  PreviewState.Stopped,
  PreviewState.Restarting,
  PreviewState.Expired,
]);

export function convergeChange(observed: ChangeObservation): ChangeDecision {
  const { recorded, composition } = observed;
  const members = membersOf(observed.key, observed.candidates);
  const refusal = refusalOf(members);
  const basis = basisOf(members);
  const unwanted =
    members.length === 0 ? Unwanted.PullRequestClosed : recorded?.suppressed ? Unwanted.StoppedByUser : null;
  if (refusal && !unwanted) {
    // The composition is left as it runs: a refusal is fixed by changing the pull requests.
    return {
      state: PreviewState.Refused,
      action: { kind: 'none' },
      unwanted: null,
      refusal,
      basis,
      members: members.map((member) => outcome(member, PreviewState.Refused)),
    };
  }
  const live = composition && composition.phase !== Phase.Destroyed ? composition.builds : null;
  const { overrides, waiting } = wantedOverrides(members, live);
  const decided = decide(
    {
      unwanted,
      wanted: overrides,
      state: recorded?.state ?? null,
      restart: recorded?.restart_pending ?? false,
      expiredHere:
        recorded !== null &&
        overrides !== null &&
        sameBuilds(overrides, recorded.composed) &&
        recorded.state !== PreviewState.Stopping &&
        recorded.state !== PreviewState.Stopped,
    },
    composition,
  );
  return {
    ...decided,
    refusal: null,
    basis,
    members: members.map((member) => {
      const missing = waiting.get(member) ?? [];
      const state = decided.state ?? PreviewState.Stopped;
      return outcome(
        member,
        missing.length > 0 && !lifecycle.has(state) ? PreviewState.WaitingForBuild : state,
        missing,
      );
    }),
  };
}
