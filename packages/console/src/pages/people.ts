/** People, for Admins: who the service knows, and each person's sign-ins, ended one by one or all at once. */
import { Auth, ErrorCode, ProblemError } from '@svc/core';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleContext, ConsoleDeps, Viewer } from '../context.ts';
import { when } from '../format.ts';
import { type Html, html } from '../html.ts';
import { base, csrfField, page } from '../layout.ts';
import { badge, render } from '../parts.ts';

const grantsText = (grants: readonly Auth.Grant[]) =>
  grants.map((g) => `${g.role} on ${g.project}`).join(', ') || 'none of their own';

function admin(c: ConsoleContext): Viewer {
  const viewer = c.get('viewer');
  Auth.authorize(viewer.identity, 'user:manage', { project: null });
  return viewer;
}

/** What the user use cases want besides the console's deps: the installation's auth mode. */
type PeopleDeps = ConsoleDeps & { mode: Auth.AuthMode };

async function people(c: ConsoleContext, deps: PeopleDeps, assets: Assets) {
  const viewer = admin(c);
  const listed = await deps.users.list({ limit: 200, after: null });
  // Only an oidc installation has an identity provider whose groups grant anything.
  const providerNote =
    deps.mode === Auth.AuthMode.Oidc ? "Grants here add to what the identity provider's groups give. " : '';
  const body = html`<h1>People</h1>
    <p class="hint">${providerNote}Manage people with <code>svc admin users set</code>, <code>disable</code> and <code>delete</code>; end their sign-ins on their page.</p>
    <table>
      <thead><tr><th scope="col">Name</th><th scope="col">Grants</th><th scope="col">Signs in with</th><th scope="col">State</th></tr></thead>
      <tbody>${listed.items.map(
        (u) => html`<tr>
          <th scope="row"><a href=${`${base}/people/${u.username}`}>${u.username}</a></th>
          <td data-label="Grants">${grantsText(u.grants)}</td>
          <td data-label="Signs in with">${u.oidc_subject ? 'identity provider' : u.password_hash ? 'password' : 'nothing yet'}</td>
          <td data-label="State">${u.disabled ? badge('bad', 'disabled') : badge('ok', 'active')}</td>
        </tr>`,
      )}</tbody>
    </table>`;
  return render(c, page(assets, { title: 'People', section: 'people', viewer, body }));
}

/** A button that ends one sign-in of the person, or all of them. */
function endButton(viewer: Viewer, name: string, action: string, label: string, text: string): Html {
  return html`<form method="post" action=${`${base}/people/${name}/${action}`}>
    ${csrfField(viewer)}
    <button type="submit" class="danger" aria-label=${label}>${text}</button>
  </form>`;
}

function signInsSection(viewer: Viewer, name: string, signIns: Auth.SignInView[], now: Date): Html {
  if (signIns.length === 0) return html`<p>No sign-in of theirs works now.</p>`;
  return html`<table>
      <thead><tr><th scope="col">Kind</th><th scope="col">Started</th><th scope="col">Ends at the latest</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${signIns.map(
        (s) => html`<tr>
          <th scope="row">${s.kind === 'cli' ? 'svc command line' : 'browser'}<br /><code class="hint">${s.id}</code></th>
          <td data-label="Started"><time datetime=${s.created_at}>${when(s.created_at, now)}</time></td>
          <td data-label="Ends at the latest"><time datetime=${s.expires_at}>${when(s.expires_at, now)}</time></td>
          <td>${endButton(viewer, name, `sign-ins/${s.id}/end`, `End sign-in ${s.id}`, 'End')}</td>
        </tr>`,
      )}</tbody>
    </table>
    <div class="actions">${endButton(viewer, name, 'sign-ins/end', `End every sign-in of ${name}`, 'End every sign-in')}</div>`;
}

async function person(c: ConsoleContext, deps: PeopleDeps, assets: Assets) {
  const viewer = admin(c);
  const name = c.req.param('name') ?? '';
  const user = Auth.usernameShape.test(name) ? await deps.users.get(name) : null;
  if (!user) throw new ProblemError(ErrorCode.NotFound, `No person named "${name}".`);
  const signIns = await Auth.listSignIns(deps, name, { limit: 100, after: null });
  const body = html`<h1>${user.username}</h1>
    <dl class="facts">
      <dt>Subject</dt><dd><code>user:${user.username}</code></dd>
      <dt>Grants of their own</dt><dd>${grantsText(user.grants)}</dd>
      <dt>State</dt><dd>${user.disabled ? badge('bad', 'disabled') : badge('ok', 'active')}</dd>
      ${user.oidc_subject ? html`<dt>Provider subject</dt><dd><code>${user.oidc_subject.sub}</code></dd>` : null}
    </dl>
    <h2>Sign-ins</h2>
    ${signInsSection(viewer, name, signIns.items, deps.clock.now())}`;
  return render(c, page(assets, { title: user.username, section: 'people', viewer, body }));
}

async function endAll(c: ConsoleContext, deps: PeopleDeps) {
  const viewer = admin(c);
  const name = c.req.param('name') ?? '';
  await Auth.endSignIns(deps, viewer.identity, name);
  return c.redirect(`${base}/people/${name}`, 303);
}

async function endOne(c: ConsoleContext, deps: PeopleDeps) {
  const viewer = admin(c);
  const name = c.req.param('name') ?? '';
  await Auth.endSignIn(deps, viewer.identity, name, c.req.param('id') ?? '');
  return c.redirect(`${base}/people/${name}`, 303);
}

export function peoplePages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  const peopleDeps = { ...deps, mode: deps.browser.mode };
  app.get('/people', (c) => people(c, peopleDeps, assets));
  app.get('/people/:name', (c) => person(c, peopleDeps, assets));
  app.post('/people/:name/sign-ins/end', (c) => endAll(c, peopleDeps));
  app.post('/people/:name/sign-ins/:id/end', (c) => endOne(c, peopleDeps));
}
