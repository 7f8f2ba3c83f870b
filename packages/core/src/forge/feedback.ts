/**
 * What the pull request shows: one check run on the head commit, and one comment edited in place or
 * a deployment of the head commit, or both. Built only from what the service itself knows (state,
 * commit SHA, build ids, its own URL and blockers): nothing the forge sent (titles) is repeated, so no
 * pull request can smuggle markup or commands into it; the one exception, the branch in a
 * deployment's environment name, is cut to the characters git and GitHub agree on.
 *
 * Each says only what a person needs, so that a state change which tells them nothing new is no
 * write (feedback-writes.ts): the check run speaks of the head commit in kinds (queued, in
 * progress, a conclusion), the comment of the preview as it stands at its URL once it settles.
 */
import type { Blocker } from '../compositions/model.ts';
import type { PreviewRecord } from './model.ts';
import { PreviewState } from './model.ts';
import type { CheckRunInput, DeploymentInput, DeploymentStatusInput } from './ports.ts';

/** The hidden marker that finds the comment again if its id was lost. */
export const commentMarker = (previewId: string) => `<!-- svc-preview:${previewId} -->`;

/** The states a preview rests in: the comment is written only in these. */
const settledStates: readonly PreviewState[] = [
  PreviewState.Ready,
  PreviewState.Failed,
  PreviewState.Stopped,
  PreviewState.Expired,
  PreviewState.Refused,
];

export const isSettled = (state: PreviewState) => settledStates.includes(state);

const expiredText = 'Expired (TTL reached); push or restart to bring it back';

/** Markdown-inert text: only characters that cannot open markup or links survive. */
const inert = (text: string) => text.replace(/[^A-Za-z0-9 .,:;=_/@#()'"+-]/g, ' ').slice(0, 300);

/**
 * The check run on the head commit. A run in progress reads the same whether a fresh composition or
 * an update is under way, and a stop reads "Stopped" from the moment it is decided, so that neither
 * restarting → deploying nor stopping → stopped is a call. The preview URL is its details only once
 * the run concluded on a preview that runs.
 */
export function checkRunFor(preview: PreviewRecord, blockers: readonly Blocker[]): CheckRunInput {
  const base = { head_sha: preview.head_sha, details_url: null };
  switch (preview.state) {
    case PreviewState.WaitingForBuild:
      return {
        ...base,
        status: 'queued',
        conclusion: null,
        title: 'Waiting for the build of this commit',
        // In a change, the components of this pull request still waiting (drive-change.ts).
        summary:
          preview.last_error?.code === 'waiting_for_build'
            ? inert(preview.last_error.message)
            : 'CI has not published a build for this commit yet.',
      };
    case PreviewState.Deploying:
    case PreviewState.Restarting:
      return {
        ...base,
        status: 'in_progress',
        conclusion: null,
        title: 'Deploying',
        summary: 'The preview of this commit is being deployed.',
      };
    case PreviewState.Ready:
      return {
        ...base,
        details_url: preview.url,
        status: 'completed',
        conclusion: 'success',
        title: 'Ready',
        summary: `Preview: ${preview.url}`,
      };
    case PreviewState.Failed:
      return {
        ...base,
        details_url: preview.url,
        status: 'completed',
        conclusion: 'failure',
        title: 'Failed',
        summary: blockers.map((b) => `${b.code}: ${inert(b.message)}`).join('\n') || 'The preview failed.',
      };
    case PreviewState.Refused:
      return {
        ...base,
        status: 'completed',
        conclusion: 'failure',
        title: 'Refused',
        summary: refusalText(preview),
      };
    case PreviewState.Expired:
      return {
        ...base,
        status: 'completed',
        conclusion: 'neutral',
        title: expiredText,
        summary: expiredText,
      };
    default:
      return { ...base, status: 'completed', conclusion: 'neutral', title: 'Stopped', summary: 'Stopped' };
  }
}

/** Why the pull request's change cannot be composed: the same words on each of its pull requests. */
const refusalText = (preview: PreviewRecord) =>
  preview.last_error
    ? `${preview.last_error.code}: ${inert(preview.last_error.message)}`
    : 'The change this pull request belongs to cannot be composed.';

const settledHeadline: Partial<Record<PreviewState, string>> = {
  [PreviewState.Ready]: 'Ready',
  [PreviewState.Failed]: 'Failed',
  [PreviewState.Stopped]: 'Stopped',
  [PreviewState.Expired]: expiredText,
  [PreviewState.Refused]: 'Refused',
};

/** The comment: the preview as it stands at its URL. Only settled states have one (`isSettled`). */
export function commentFor(preview: PreviewRecord, blockers: readonly Blocker[]): string {
  const rows = [
    `| Phase | ${settledHeadline[preview.state] ?? preview.state} |`,
    `| URL | ${preview.url && preview.state === PreviewState.Ready ? preview.url : '—'} |`,
    // A stopped preview runs no commit: a push to its pull request changes nothing here.
    ...(preview.state === PreviewState.Stopped ? [] : [`| Commit | \`${preview.head_sha.slice(0, 12)}\` |`]),
    ...Object.entries(preview.builds).map(
      ([component, build]) => `| Overridden | \`${component}\` ← build \`${build}\` |`,
    ),
    ...(preview.expires_at ? [`| Expires | ${preview.expires_at} |`] : []),
  ];
  const failure =
    preview.state === PreviewState.Failed
      ? [
          '',
          '**Blockers**',
          '',
          ...blockers.map((b) => `- \`${b.code}\`: ${inert(b.message)}`),
          ...(preview.last_error
            ? [`- \`${preview.last_error.code}\`: ${inert(preview.last_error.message)}`]
            : []),
        ]
      : preview.state === PreviewState.Refused
        ? ['', '**Why**', '', `- ${refusalText(preview)}`]
        : [];
  return [commentMarker(preview.id), '### Preview', '', '| | |', '|---|---|', ...rows, ...failure].join('\n');
}

/**
 * The deployment's environment: `preview/<head branch>`, shared by the pull requests of one change,
 * kept to characters that are inert anywhere GitHub shows it. A fork's branch names nothing of this
 * repository (many forks push `main`), so a fork's pull request, or one saved before branches were
 * kept, is `preview/pr-<number>`.
 */
function deploymentEnvironment(preview: PreviewRecord): string {
  const branch = preview.fork ? '' : preview.head_ref.replace(/[^A-Za-z0-9._/-]/g, '-').slice(0, 200);
  return `preview/${branch || `pr-${preview.number}`}`;
}

export function deploymentFor(preview: PreviewRecord): DeploymentInput {
  return {
    sha: preview.head_sha,
    environment: deploymentEnvironment(preview),
    description: `Preview of pull request #${preview.number}`,
  };
}

/** GitHub keeps 140 characters of a status's description. */
const short = (text: string) => (text.length > 140 ? `${text.slice(0, 139)}…` : text);

/**
 * The console's page of the preview: its composition's (logs, diagnosis, events), or before it has
 * one its row among the pull-request previews. Null without the service's public origin.
 */
function consolePageOf(preview: PreviewRecord, origin: string | null): string | null {
  if (origin === null) return null;
  if (preview.composition_id) return `${origin}/console/compositions/${preview.composition_id}`;
  return `${origin}/console/pr-previews?project=${preview.project}#preview-${preview.id}`;
}

/**
 * The deployment's newest status: the same kinds as the check run (queued, in progress, a
 * conclusion), `inactive` once nothing runs, the preview URL as its environment URL while ready,
 * and the console's page of it as its log URL (`consoleOrigin`: the service's public origin).
 */
export function deploymentStatusFor(
  preview: PreviewRecord,
  blockers: readonly Blocker[],
  consoleOrigin: string | null = null,
): DeploymentStatusInput {
  const status = (state: DeploymentStatusInput['state'], description: string): DeploymentStatusInput => ({
    state,
    description: short(description),
    environment_url: null,
    log_url: consolePageOf(preview, consoleOrigin),
  });
  switch (preview.state) {
    case PreviewState.WaitingForBuild:
      return status('queued', 'Waiting for the build of this commit');
    case PreviewState.Deploying:
    case PreviewState.Restarting:
      return status('in_progress', 'Deploying');
    case PreviewState.Ready:
      return { ...status('success', 'Ready'), environment_url: preview.url };
    case PreviewState.Failed: {
      const first = blockers[0] ?? preview.last_error;
      return status('failure', first ? `Failed: ${first.code}: ${inert(first.message)}` : 'Failed');
    }
    case PreviewState.Refused:
      return status('error', `Refused: ${refusalText(preview)}`);
    case PreviewState.Expired:
      return status('inactive', expiredText);
    default:
      return status('inactive', 'Stopped');
  }
}
