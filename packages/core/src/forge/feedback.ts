/**
 * What the pull request shows: one check run on the head commit and one comment edited in place.
 * Built only from what the service itself knows (state, commit SHA, build ids, its own URL and
 * blockers): nothing the forge sent (titles, branch names) is repeated, so no pull request can
 * smuggle markup or commands into it.
 */
import { contentHash } from '../canonical.ts';
import type { Blocker } from '../compositions/model.ts';
import type { PreviewRecord } from './model.ts';
import { PreviewState } from './model.ts';
import type { CheckRunInput } from './ports.ts';

/** The hidden marker that finds the comment again if its id was lost. */
export const commentMarker = (previewId: string) => `<!-- svc-preview:${previewId} -->`;

const headline: Record<PreviewState, string> = {
  waiting_for_build: 'Waiting for the build of this commit',
  deploying: 'Deploying',
  ready: 'Ready',
  failed: 'Failed',
  stopping: 'Stopping',
  stopped: 'Stopped',
  restarting: 'Restarting',
  expired: 'Expired (TTL reached); push or restart to bring it back',
};

/** Markdown-inert text: only characters that cannot open markup or links survive. */
const inert = (text: string) => text.replace(/[^A-Za-z0-9 .,:;=_/@#()'"+-]/g, ' ').slice(0, 300);

function checkRun(preview: PreviewRecord, blockers: readonly Blocker[]): CheckRunInput {
  const base = { head_sha: preview.head_sha, details_url: preview.url, title: headline[preview.state] };
  switch (preview.state) {
    case PreviewState.Ready:
      return { ...base, status: 'completed', conclusion: 'success', summary: `Preview: ${preview.url}` };
    case PreviewState.Failed:
      return {
        ...base,
        status: 'completed',
        conclusion: 'failure',
        summary: blockers.map((b) => `${b.code}: ${inert(b.message)}`).join('\n') || 'The preview failed.',
      };
    case PreviewState.WaitingForBuild:
      return {
        ...base,
        status: 'queued',
        conclusion: null,
        summary: 'CI has not published a build for this commit yet.',
      };
    case PreviewState.Deploying:
    case PreviewState.Restarting:
      return { ...base, status: 'in_progress', conclusion: null, summary: headline[preview.state] };
    default:
      return { ...base, status: 'completed', conclusion: 'neutral', summary: headline[preview.state] };
  }
}

function comment(preview: PreviewRecord, blockers: readonly Blocker[]): string {
  const rows = [
    `| Phase | ${headline[preview.state]} |`,
    `| URL | ${preview.url && preview.state === PreviewState.Ready ? preview.url : '—'} |`,
    `| Commit | \`${preview.head_sha.slice(0, 12)}\` |`,
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
      : [];
  return [commentMarker(preview.id), '### Preview', '', '| | |', '|---|---|', ...rows, ...failure].join('\n');
}

/** The feedback for a preview, and a fingerprint that tells whether it changed since it was written. */
export function feedbackFor(preview: PreviewRecord, blockers: readonly Blocker[]) {
  const run = checkRun(preview, blockers);
  const body = comment(preview, blockers);
  return { checkRun: run, comment: body, fingerprint: contentHash([run, body]) };
}
