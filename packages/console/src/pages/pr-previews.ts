/**
 * Pull-request previews: their lifecycle state, pull request, commit and URL, refreshed in place;
 * stop (automation leaves the pull request alone) and restart (a fresh URL and TTL) for those who
 * may control them. The same core use cases as `POST /v1/forge/previews/{id}/stop|restart`.
 */
import { Forge, isDnsLabel, maxPageSize, type ProblemError } from '@svc/core';
import { can } from '../access.ts';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleContext, ConsoleDeps, Viewer } from '../context.ts';
import { count, interval, pullRequestUrl, readable } from '../format.ts';
import { type Html, html } from '../html.ts';
import { base, csrfField, page } from '../layout.ts';
import { asProblem, countdown, problemNotice, render } from '../parts.ts';

const stateTone: Record<Forge.PreviewState, 'ok' | 'bad' | 'busy' | 'idle'> = {
  waiting_for_build: 'busy',
  deploying: 'busy',
  ready: 'ok',
  failed: 'bad',
  stopping: 'idle',
  stopped: 'idle',
  restarting: 'busy',
  expired: 'idle',
  refused: 'bad',
};

/**
 * What a person may do to the preview now. Stop while automation runs it; Restart after a person
 * stopped it (or when it failed or expired). A preview automation stopped itself — its pull request
 * closed, unlabelled, or its policy off — gets neither: restarting would be refused, and reopening
 * or relabelling brings it back without anyone asking. A change's acts on the whole change.
 */
function actions(viewer: Viewer, preview: Forge.PreviewView, query: string, label: string): Html {
  if (!can(viewer.identity, 'preview:control', preview.project)) return null;
  const action = (verb: 'stop' | 'restart', text: string, tone: string) =>
    html`<form method="post" action=${`${base}/pr-previews/${preview.id}/${verb}${query}`}>
      ${csrfField(viewer)}
      <button type="submit" class=${tone} aria-label=${`${text} the preview of ${label}`}>${text}</button>
    </form>`;
  const settling = preview.state === 'stopping' || preview.state === 'restarting';
  if (preview.automation === 'suppressed') return settling ? null : action('restart', 'Restart', 'secondary');
  if (preview.state === 'stopped' || settling) return null;
  return action('stop', 'Stop', 'danger');
}

/** The preview cell when there is no URL: why, in a word. */
function noUrl(preview: Forge.PreviewView): string {
  if (preview.state === 'stopped' || preview.state === 'stopping') return 'stopped';
  if (preview.state === 'expired') return 'expired';
  return 'none yet';
}

/** Why automation stopped it, when a person did not. */
function stopReason(preview: Forge.PreviewView): Html {
  if (preview.automation === 'suppressed') return html`<br /><span class="hint">stopped by a person</span>`;
  if (preview.state === 'stopped') {
    return html`<br /><span class="hint">its pull request is closed, unlabelled or its policy is off</span>`;
  }
  return null;
}

const subjectOf = (preview: Pick<Forge.PreviewView, 'repository'> & { number: number }) =>
  Forge.ownerSubject(preview.repository, preview.number);

function pullRequestLink(subject: string, forgeWebUrl: string): Html {
  const link = pullRequestUrl(subject, forgeWebUrl);
  return link ? html`<a href=${link}>${subject}</a>` : html`${subject}`;
}

const stateBadge = (preview: Forge.PreviewView) =>
  html`<span class=${`badge ${stateTone[preview.state]}`} data-state=${preview.state}>${readable(preview.state)}</span>`;

const lastError = (preview: Forge.PreviewView): Html =>
  preview.last_error ? html`<br /><span class="hint">${preview.last_error.message}</span>` : null;

function headCommit(preview: Forge.PreviewView): Html {
  const { head_sha } = preview.pull_request;
  const running = preview.deployed_sha && preview.deployed_sha !== head_sha;
  return html`<code>${head_sha.slice(0, 12)}</code>${
    running ? html`<br /><span class="hint">running ${preview.deployed_sha?.slice(0, 12)}</span>` : null
  }`;
}

function previewCell(preview: Forge.PreviewView): Html {
  return html`${preview.url ? html`<a href=${preview.url}>${preview.url}</a>` : html`<span class="hint" data-no-url="">${noUrl(preview)}</span>`}${
    preview.composition_id
      ? html`<br /><a href=${`${base}/compositions/${preview.composition_id}`}>composition ${preview.composition_id}</a>`
      : null
  }`;
}

function previewRow(
  viewer: Viewer,
  preview: Forge.PreviewView,
  query: string,
  now: Date,
  forgeWebUrl: string,
) {
  const subject = subjectOf({ repository: preview.repository, number: preview.pull_request.number });
  return html`<tr id=${`preview-${preview.id}`}>
    <th scope="row">${pullRequestLink(subject, forgeWebUrl)}<br /><code class="hint">${preview.id}</code></th>
    <td data-label="State">${stateBadge(preview)}${stopReason(preview)}${lastError(preview)}</td>
    <td data-label="Head commit">${headCommit(preview)}</td>
    <td data-label="Preview">${previewCell(preview)}</td>
    <td data-label="Expires in">${preview.expires_at ? countdown(preview.expires_at, now) : null}</td>
    <td>${actions(viewer, preview, query, subject)}</td>
  </tr>`;
}

/**
 * A change: its pull requests (every one, from the change), the state of each listed here (one
 * badge when they agree), their head commits, and the one preview they share, stopped or restarted
 * as a whole.
 */
function changeRow(
  viewer: Viewer,
  members: readonly [Forge.PreviewView, ...Forge.PreviewView[]],
  query: string,
  now: Date,
  forgeWebUrl: string,
) {
  const [first] = members;
  const change = first.change as NonNullable<Forge.PreviewView['change']>;
  const names = change.pull_requests.map(subjectOf);
  const memberName = (preview: Forge.PreviewView) =>
    html` <span class="hint">${subjectOf({ repository: preview.repository, number: preview.pull_request.number })}</span>`;
  const agreed = members.every((preview) => preview.state === first.state);
  const errors = [...new Set(members.flatMap((preview) => preview.last_error?.message ?? []))];
  return html`<tr id=${`change-${change.id}`} data-change=${change.id}>
    <th scope="row">Change of ${count(names.length, 'pull request')}:${names.map((name) => html`<br />${pullRequestLink(name, forgeWebUrl)}`)}<br /><code class="hint">${change.id}</code></th>
    <td data-label="State">${
      agreed
        ? html`${stateBadge(first)}${stopReason(first)}`
        : members.map(
            (preview, n) => html`${n > 0 ? html`<br />` : null}${stateBadge(preview)}${memberName(preview)}`,
          )
    }${errors.map((message) => html`<br /><span class="hint">${message}</span>`)}</td>
    <td data-label="Head commits">${members.map((preview, n) => html`${n > 0 ? html`<br />` : null}${headCommit(preview)}${memberName(preview)}`)}</td>
    <td data-label="Preview">${previewCell(first)}</td>
    <td data-label="Expires in">${first.expires_at ? countdown(first.expires_at, now) : null}</td>
    <td>${actions(viewer, first, query, names.join(', '))}</td>
  </tr>`;
}

/** The previews in rows: one per pull request, the pull requests of a change together in one. */
function grouped(items: readonly Forge.PreviewView[]): [Forge.PreviewView, ...Forge.PreviewView[]][] {
  const groups = new Map<string, [Forge.PreviewView, ...Forge.PreviewView[]]>();
  for (const preview of items) {
    const key = preview.change ? `change:${preview.change.id}` : preview.id;
    const group = groups.get(key);
    if (group) group.push(preview);
    else groups.set(key, [preview]);
  }
  return [...groups.values()];
}

function rows(
  viewer: Viewer,
  items: Forge.PreviewView[],
  query: string,
  now: Date,
  forgeWebUrl: string,
  refreshEvery: string,
): Html {
  return html`<tbody id="preview-rows" hx-get=${`${base}/pr-previews/rows${query}`} hx-trigger=${`every ${refreshEvery}`} hx-swap="outerMorph">
    ${
      items.length === 0
        ? html`<tr><td colspan="6">No pull-request previews.</td></tr>`
        : grouped(items).map((group) =>
            group[0].change
              ? changeRow(viewer, group, query, now, forgeWebUrl)
              : previewRow(viewer, group[0], query, now, forgeWebUrl),
          )
    }
  </tbody>`;
}

function projectOf(query: Record<string, string>): string | null {
  const project = query.project ?? '';
  return isDnsLabel(project, 63) ? project : null;
}

async function listed(deps: ConsoleDeps, viewer: Viewer, project: string | null) {
  return Forge.listPreviews(deps, viewer.identity, { project }, { limit: maxPageSize, after: null });
}

export function prPreviewPages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  const forgeWebUrl = deps.forgeWebUrl ?? 'https://github.com';
  const refreshEvery = interval(deps.refreshMs ?? 3000);
  const queryOf = (project: string | null) => (project ? `?project=${encodeURIComponent(project)}` : '');

  const show = async (c: ConsoleContext, problem?: ProblemError) => {
    const viewer = c.get('viewer');
    const project = projectOf(c.req.query());
    const list = await listed(deps, viewer, project);
    const body = html`
      <h1>Pull-request previews</h1>
      <p>A pull request carrying its repository's preview label gets a preview from the build CI published for its head commit (see the repository's preview policy). Stop leaves the pull request alone until a restart; restart gives a fresh URL and lifetime.</p>
      ${problem ? problemNotice(problem) : null}
      <table>
        <caption>${count(list.items.length, 'preview')}${project ? ` of ${project}` : ''}; states refresh every ${refreshEvery} while scripts run.</caption>
        <thead><tr><th scope="col">Pull request</th><th scope="col">State</th><th scope="col">Head commit</th><th scope="col">Preview</th><th scope="col">Expires in</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        ${rows(viewer, list.items, queryOf(project), deps.clock.now(), forgeWebUrl, refreshEvery)}
      </table>`;
    return render(
      c,
      page(assets, { title: 'Pull-request previews', section: 'previews', viewer, body }),
      problem?.status ?? 200,
    );
  };

  app.get('/pr-previews', (c) => show(c));

  app.get('/pr-previews/rows', async (c) => {
    const viewer = c.get('viewer');
    const project = projectOf(c.req.query());
    const list = await listed(deps, viewer, project);
    const now = deps.clock.now();
    return render(c, rows(viewer, list.items, queryOf(project), now, forgeWebUrl, refreshEvery), 200, true);
  });

  for (const verb of ['stop', 'restart'] as const) {
    app.post(`/pr-previews/:id/${verb}`, async (c) => {
      const viewer = c.get('viewer');
      try {
        await Forge[verb](deps, viewer.identity, c.req.param('id'));
      } catch (error) {
        return show(c, asProblem(error));
      }
      return c.redirect(`${base}/pr-previews${queryOf(projectOf(c.req.query()))}`, 303);
    });
  }
}
