/**
 * A change: pull requests of several repositories of one project (and one installation) that share
 * a head branch, or a `preview-group:<key>` label, seen as one preview. One composition overrides
 * each pull request's component(s) with its build (the rule: change-converge.ts).
 */
import { contentHash } from '../canonical.ts';
import type { Blocker } from '../compositions/model.ts';
import { accountOf, GroupBy, type PreviewPolicy, type PreviewState, type PullRequest } from './model.ts';

const ChangeKeyKind = { Branch: 'branch', Label: 'label' } as const;
type ChangeKeyKind = (typeof ChangeKeyKind)[keyof typeof ChangeKeyKind];

/** What groups the pull requests of a change: their head branch, or the key of a group label. */
export interface ChangeKey {
  kind: ChangeKeyKind;
  /** Text from the forge: data only, never put into markup, a command or a URL. */
  name: string;
}

/** A pull request in a change, as the change last saw it. */
export interface ChangeMember {
  repository: string;
  number: number;
  /** The components its repository's policy names: the ones it overrides. */
  components: string[];
}

export interface ChangeRefusal {
  code: string;
  message: string;
}

/**
 * A change as last converged: one item, written over the `lock_version` read, so concurrent
 * convergences of its pull requests take turns, and its composition id is recorded before the
 * composition is created (a crash in between: the next convergence creates it under that id).
 */
export interface ChangeRecord {
  /** `changeId` of its installation's account and key. */
  id: string;
  /** The installation's account, in lower case (one installation per account). */
  account: string;
  key: ChangeKey;
  /** The project of its composition, once it has one. */
  project: string | null;
  /** Its pull requests as last converged; each is read again every time, with the one an event names. */
  members: ChangeMember[];
  state: PreviewState;
  composition_id: string | null;
  /** The overrides it last composed (component → build id). */
  composed: Record<string, string>;
  url: string | null;
  expires_at: string | null;
  /** Why it cannot be composed, while it cannot. */
  refusal: ChangeRefusal | null;
  /** A user stop: automation leaves it alone until a restart, or until its last pull request leaves. */
  suppressed: boolean;
  restart_pending: boolean;
  /** When the pending look at its composition in progress is due; one chain of polls per change. */
  poll_at: string | null;
  created_at: string;
  updated_at: string;
  lock_version: number;
}

/** The label that groups pull requests explicitly: `preview-group:<key>`. */
const groupLabelPrefix = 'preview-group:';

/** A group label's key: up to 40 of letters, digits, `.`, `_`, `-` and `/`; any other such label is ignored. */
const groupKey = /^[A-Za-z0-9._/-]{1,40}$/;

/** The key of the pull request's first well-formed group label (case as labelled). */
function labelKey(labels: readonly string[]): string | null {
  for (const label of labels) {
    if (label.toLowerCase().startsWith(groupLabelPrefix)) {
      const key = label.slice(groupLabelPrefix.length).trim();
      if (groupKey.test(key)) return key;
    }
  }
  return null;
}

/**
 * The change a pull request belongs to, or null for a preview of its own: its group label, else its
 * head branch when the policy groups by branch. A fork groups only by label, which only someone
 * with triage rights on the repository can put there: naming a branch alike joins no one's change.
 */
export function groupOf(policy: PreviewPolicy | null, pr: PullRequest | null): ChangeKey | null {
  if (!policy || !pr) return null;
  const label = labelKey(pr.labels);
  if (label !== null) return { kind: ChangeKeyKind.Label, name: label };
  if (policy.group_by === GroupBy.Branch && !pr.fork && pr.head_ref !== '') {
    return { kind: ChangeKeyKind.Branch, name: pr.head_ref };
  }
  return null;
}

/**
 * One change per installation and key: the id is derived, so two workers can never make two. Not
 * per project: pull requests of two projects that share a key are one change, refused with why.
 */
export function changeId(repository: string, key: ChangeKey): string {
  return `ch-${contentHash([accountOf(repository).toLowerCase(), key.kind, key.name]).slice(0, 20)}`;
}

export const sameKey = (a: ChangeKey | null, b: ChangeKey | null) =>
  a !== null && b !== null && a.kind === b.kind && a.name === b.name;

export const memberName = (member: Pick<ChangeMember, 'repository' | 'number'>) =>
  `${member.repository}#${member.number}`;

/**
 * A change's composition's blockers as each of its pull requests is told them: one of a component
 * names the pull request whose build it runs (or the baseline), so every member sees which
 * component failed and whose push fixes it. Blockers of no component are told as they are.
 */
export function blockersOfChange(blockers: readonly Blocker[], members: readonly ChangeMember[]): Blocker[] {
  return blockers.map((blocker) => {
    const { component } = blocker;
    if (component === null) return blocker;
    const member = members.find((m) => m.components.includes(component));
    const source = member ? `the build of ${memberName(member)}` : 'the baseline';
    return { ...blocker, message: `${component} (${source}): ${blocker.message}` };
  });
}
