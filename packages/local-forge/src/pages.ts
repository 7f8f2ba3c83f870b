// Read-only web pages, where GitHub has its own: one per pull request (at its html_url) with its
// title, labels, head commit, the comments, the check runs of the head commit, the deployments of
// its head branch, and an index of
// the pull requests. Everything shown is data from the forge's state, escaped; nothing can be
// changed here.

import { Hono } from 'hono';
import { html } from 'hono/html';
import type { CheckRunRecord, CommentRecord, DeploymentRecord, PullRecord } from './state.ts';
import type { ForgeStore } from './store.ts';

/** Paths the pages answer; everything else is the API's. */
export const isPagePath = (pathname: string) =>
  pathname === '/' || /^\/[^/]+\/[^/]+\/pull\/\d+$/.test(pathname);

const style = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
.label{display:inline-block;padding:0 .5rem;border-radius:1rem;background:#ddf4ff;margin-right:.25rem}
.box{border:1px solid #d0d7de;border-radius:6px;padding:.75rem 1rem;margin:1rem 0}
pre{white-space:pre-wrap;word-break:break-word;margin:0}code{font-size:90%}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #d0d7de}`;

function page(title: string, body: unknown) {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · local forge</title>
    <style>
      ${style}
    </style>
  </head>
  <body>
    <p><a href="/">local forge</a> · a GitHub stand-in (read-only)</p>
    ${body}
  </body>
</html>`;
}

/** Only web addresses become links; anything else a check run carries is shown as text. */
const link = (url: string | null) =>
  url && /^https?:\/\//i.test(url) ? html`<a href="${url}">${url}</a>` : html`${url ?? '—'}`;

const comment = (c: CommentRecord) => html`<div class="box" id="issuecomment-${c.id}">
  <p><strong>${c.author}</strong> commented ${c.createdAt}${c.updatedAt !== c.createdAt ? html` · edited ${c.updatedAt}` : ''}</p>
  <pre>${c.body}</pre>
</div>`;

const checkRun = (run: CheckRunRecord) => html`<tr>
  <td>${run.name}</td>
  <td>${run.status}${run.conclusion ? html` · <strong>${run.conclusion}</strong>` : ''}</td>
  <td>${run.output.title ?? ''}<pre>${run.output.summary ?? ''}</pre></td>
  <td>${link(run.detailsUrl)}</td>
</tr>`;

/** A deployment with its newest status, as the pull request's timeline shows it. */
function deploymentRow(store: ForgeStore, deployment: DeploymentRecord) {
  const latest = store.state.deploymentStatuses.findLast((s) => s.deploymentId === deployment.id);
  return html`<tr id="deployment-${deployment.id}">
  <td>${deployment.environment}</td>
  <td>${latest ? html`<strong>${latest.state}</strong>` : 'no status'}${latest?.description ? html` · ${latest.description}` : ''}</td>
  <td>${link(latest?.environmentUrl || null)}</td>
  <td>${link(latest?.logUrl || null)}</td>
</tr>`;
}

/** GitHub shows a pull request the deployments of its head branch. */
function deploymentsOf(store: ForgeStore, pull: PullRecord) {
  const deployments = store.state.deployments.filter(
    (d) => d.repositoryId === pull.repositoryId && (d.ref === pull.headRef || d.sha === pull.headSha),
  );
  return deployments.length
    ? html`<table>
        <tr><th>environment</th><th>state</th><th>environment URL</th><th>log</th></tr>
        ${deployments.reverse().map((d) => deploymentRow(store, d))}
      </table>`
    : html`<p>No deployments.</p>`;
}

function pullPage(store: ForgeStore, pull: PullRecord, fullName: string) {
  const comments = store.state.comments.filter(
    (c) => c.repositoryId === pull.repositoryId && c.issueNumber === pull.number,
  );
  const runs = store.state.checkRuns.filter(
    (run) => run.repositoryId === pull.repositoryId && run.headSha === pull.headSha,
  );
  const state = pull.merged ? 'merged' : pull.state;
  return page(
    `${fullName}#${pull.number}`,
    html`<h1>${pull.title} <small>${fullName}#${pull.number}</small></h1>
      <p>
        <strong>${state}</strong>${pull.draft ? ' (draft)' : ''} · ${pull.author} wants to merge
        <code>${pull.headRef}</code> into <code>${pull.baseRef}</code>
      </p>
      <p>Head commit <code>${pull.headSha}</code></p>
      <p>Labels: ${pull.labels.length ? pull.labels.map((l) => html`<span class="label">${l}</span>`) : 'none'}</p>
      <h2>Checks on the head commit</h2>
      ${
        runs.length
          ? html`<table>
              <tr><th>name</th><th>status</th><th>output</th><th>details</th></tr>
              ${runs.map(checkRun)}
            </table>`
          : html`<p>No check runs.</p>`
      }
      <h2>Deployments</h2>
      ${deploymentsOf(store, pull)}
      <h2>Comments</h2>
      ${comments.length ? comments.map(comment) : html`<p>No comments.</p>`}`,
  );
}

function indexPage(store: ForgeStore) {
  const rows = store.state.pulls.map((pull) => {
    const repository = store.repositoryById(pull.repositoryId);
    const fullName = `${repository.owner}/${repository.name}`;
    const path = `/${repository.owner}/${repository.name}/pull/${pull.number}`;
    return html`<tr>
      <td><a href="${path}">${fullName}#${pull.number}</a></td>
      <td>${pull.title}</td>
      <td>${pull.merged ? 'merged' : pull.state}</td>
      <td>${pull.labels.join(', ')}</td>
    </tr>`;
  });
  return page(
    'pull requests',
    html`<h1>Pull requests</h1>
      ${
        rows.length
          ? html`<table>
              <tr><th>pull request</th><th>title</th><th>state</th><th>labels</th></tr>
              ${rows}
            </table>`
          : html`<p>None yet: <code>npm run forge -- open owner/repo --head BRANCH</code>.</p>`
      }`,
  );
}

export function createPages(store: ForgeStore): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    // Pages show text others wrote: no script, no plugin, no framing.
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    c.header('X-Content-Type-Options', 'nosniff');
  });
  app.get('/', (c) => c.html(indexPage(store)));
  app.get('/:owner/:repo/pull/:number', (c) => {
    const repository = store.repository(c.req.param('owner'), c.req.param('repo'));
    const pull = repository && store.pull(repository.id, Number(c.req.param('number')));
    if (!repository || !pull) return c.html(page('not found', html`<h1>No such pull request</h1>`), 404);
    return c.html(pullPage(store, pull, `${repository.owner}/${repository.name}`));
  });
  return app;
}
