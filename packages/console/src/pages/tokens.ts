/** Machine tokens, for Admins: issue (the secret shown once), list, revoke. */
import { Auth, type ProblemError, parseOrThrow } from '@svc/core';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleContext, ConsoleDeps, Viewer } from '../context.ts';
import { when } from '../format.ts';
import type { Fields } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { base, csrfField, page } from '../layout.ts';
import { asProblem, badge, problemNotice, render } from '../parts.ts';

type Token = Awaited<ReturnType<typeof Auth.issueToken>>;

function state(token: { expires_at: string | null; revoked_at: string | null }, now: Date): Html {
  if (token.revoked_at) return badge('bad', 'revoked');
  if (token.expires_at && Date.parse(token.expires_at) <= now.getTime()) return badge('idle', 'expired');
  return badge('ok', 'active');
}

/** The issue form's fields as the token route's body: one grant, a role on a project. */
export function issueBody(fields: Fields): Record<string, unknown> {
  const days = (fields.expires_in_days ?? '').trim();
  return {
    name: (fields.name ?? '').trim(),
    grants: [{ role: fields.role ?? '', project: (fields.project ?? '').trim() || '*', repository: null }],
    ...(days ? { expires_in_days: /^\d{1,4}$/.test(days) ? Number(days) : days } : {}),
  };
}

interface Shown {
  issued?: Token;
  problem?: ProblemError;
  fields?: Fields;
}

/** The secret of a token just issued: shown on this one answer and never again. */
function issuedNotice(issued: Token): Html {
  return html`<div class="notice" role="status">
    <p>Token <strong>${issued.name}</strong> issued. Copy it now: it is not shown again.</p>
    <div class="copy"><pre id="issued-token">${issued.token}</pre>
      <button type="button" class="secondary" data-copy="issued-token" hidden>Copy</button></div>
  </div>`;
}

function issueForm(viewer: Viewer, fields: Fields): Html {
  const roles = Object.values(Auth.GrantRole);
  return html`<form method="post" action=${`${base}/tokens`} class="filters">
    ${csrfField(viewer)}
    <div><label for="token-name">Name</label><input type="text" id="token-name" name="name" required pattern="[a-z0-9._\\-]+" value=${fields.name ?? ''} /></div>
    <div><label for="token-role">Role</label><select id="token-role" name="role">${roles.map(
      (r) => html`<option value=${r} selected=${(fields.role ?? 'developer') === r}>${r}</option>`,
    )}</select></div>
    <div><label for="token-project">Project</label><input type="text" id="token-project" name="project" value=${fields.project ?? '*'} /></div>
    <div><label for="token-days">Expires in (days)</label><input type="number" id="token-days" name="expires_in_days" min="1" max="365" value=${fields.expires_in_days ?? '90'} /></div>
    <button type="submit">Issue</button>
  </form>`;
}

function tokenRow(viewer: Viewer, t: Auth.MachineToken, now: Date): Html {
  return html`<tr>
    <th scope="row">${t.name}<br /><code class="hint">${t.id}</code></th>
    <td data-label="Grants">${t.grants.map((g) => `${g.role} on ${g.project}`).join(', ')}</td>
    <td data-label="State">${state(t, now)}</td>
    <td data-label="Created">${when(t.created_at, now)} by ${t.created_by}</td>
    <td data-label="Expires">${t.expires_at ? when(t.expires_at, now) : 'never'}</td>
    <td>${
      t.revoked_at
        ? null
        : html`<form method="post" action=${`${base}/tokens/${t.id}/revoke`}>
            ${csrfField(viewer)}
            <button type="submit" class="danger" aria-label=${`Revoke ${t.name} (${t.id})`}>Revoke</button>
          </form>`
    }</td>
  </tr>`;
}

async function show(c: ConsoleContext, deps: ConsoleDeps, assets: Assets, viewer: Viewer, extra: Shown) {
  Auth.authorize(viewer.identity, 'token:manage', { project: null });
  const tokens = await deps.tokens.list({ limit: 100, after: null });
  const now = deps.clock.now();
  const machineTokens = viewer.mode !== Auth.AuthMode.Dev && viewer.mode !== Auth.AuthMode.Anonymous;
  const body = html`
    <h1>Machine tokens</h1>
    ${machineTokens ? null : html`<p class="warning">This installation (${viewer.mode} mode) accepts no machine tokens; tokens issued here work only after a switch to another mode.</p>`}
    ${extra.problem ? problemNotice(extra.problem) : null}
    ${extra.issued ? issuedNotice(extra.issued) : null}
    <h2>Issue a token</h2>
    ${issueForm(viewer, extra.fields ?? {})}
    <h2>Tokens</h2>
    <table>
      <thead><tr><th scope="col">Name</th><th scope="col">Grants</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${tokens.items.map((t) => tokenRow(viewer, t, now))}</tbody>
    </table>`;
  return render(
    c,
    page(assets, { title: 'Tokens', section: 'tokens', viewer, body }),
    extra.problem?.status ?? 200,
  );
}

async function issue(c: ConsoleContext, deps: ConsoleDeps, assets: Assets) {
  const viewer = c.get('viewer');
  const fields = c.get('fields');
  Auth.authorize(viewer.identity, 'token:manage', { project: null });
  try {
    const issued = await Auth.issueToken(
      deps,
      viewer.identity,
      parseOrThrow(Auth.IssueTokenBody, issueBody(fields)),
    );
    return show(c, deps, assets, viewer, { issued });
  } catch (error) {
    return show(c, deps, assets, viewer, { problem: asProblem(error), fields });
  }
}

async function revoke(c: ConsoleContext, deps: ConsoleDeps) {
  const viewer = c.get('viewer');
  Auth.authorize(viewer.identity, 'token:manage', { project: null });
  await Auth.revokeMachineToken(deps, viewer.identity, c.req.param('id') ?? '');
  return c.redirect(`${base}/tokens`, 303);
}

export function tokenPages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  app.get('/tokens', (c) => show(c, deps, assets, c.get('viewer'), {}));
  app.post('/tokens', (c) => issue(c, deps, assets));
  app.post('/tokens/:id/revoke', (c) => revoke(c, deps));
}
