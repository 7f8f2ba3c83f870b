/** People, for Admins: who the service knows, and each person's sign-ins, ended one by one or all at once. */
import { Auth, ErrorCode, ProblemError } from '@svc/core';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleContext, ConsoleDeps, Viewer } from '../context.ts';
import { when } from '../format.ts';
import { html } from '../html.ts';
import { base, csrfField, page } from '../layout.ts';
import { badge, render } from '../parts.ts';

const grantsText = (grants: readonly Auth.Grant[]) =>
  grants.map((g) => `${g.role} on ${g.project}`).join(', ') || 'none of their own';

function admin(c: ConsoleContext): Viewer {
  const viewer = c.get('viewer');
  Auth.authorize(viewer.identity, 'user:manage', { project: null });
  return viewer;
}

export function peoplePages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  const userDeps = { ...deps, mode: deps.browser.mode };

  app.get('/people', async (c) => {
    const viewer = admin(c);
    const people = await deps.users.list({ limit: 200, after: null });
    const body = html`<h1>People</h1>
      <p class="hint">Grants here add to what an identity provider's groups give. Manage people with
        <code>PUT /v1/users/{name}</code>; end their sign-ins on their page.</p>
      <table>
        <thead><tr><th scope="col">Name</th><th scope="col">Grants</th><th scope="col">Signs in with</th><th scope="col">State</th></tr></thead>
        <tbody>${people.items.map(
          (u) => html`<tr>
            <th scope="row"><a href=${`${base}/people/${u.username}`}>${u.username}</a></th>
            <td data-label="Grants">${grantsText(u.grants)}</td>
            <td data-label="Signs in with">${u.oidc_subject ? 'identity provider' : u.password_hash ? 'password' : 'nothing yet'}</td>
            <td data-label="State">${u.disabled ? badge('bad', 'disabled') : badge('ok', 'active')}</td>
          </tr>`,
        )}</tbody>
      </table>`;
    return render(c, page(assets, { title: 'People', section: 'people', viewer, body }));
  });

  app.get('/people/:name', async (c) => {
    const viewer = admin(c);
    const name = c.req.param('name');
    const user = Auth.usernameShape.test(name) ? await deps.users.get(name) : null;
    if (!user) throw new ProblemError(ErrorCode.NotFound, `No person named "${name}".`);
    const signIns = await Auth.listSignIns(userDeps, name, { limit: 100, after: null });
    const end = (action: string, label: string, text: string) =>
      html`<form method="post" action=${`${base}/people/${name}/${action}`}>
        ${csrfField(viewer)}
        <button type="submit" class="danger" aria-label=${label}>${text}</button>
      </form>`;
    const body = html`<h1>${user.username}</h1>
      <dl class="facts">
        <dt>Subject</dt><dd><code>user:${user.username}</code></dd>
        <dt>Grants of their own</dt><dd>${grantsText(user.grants)}</dd>
        <dt>State</dt><dd>${user.disabled ? badge('bad', 'disabled') : badge('ok', 'active')}</dd>
        ${user.oidc_subject ? html`<dt>Provider subject</dt><dd><code>${user.oidc_subject.sub}</code></dd>` : null}
      </dl>
      <h2>Sign-ins</h2>
      ${
        signIns.items.length === 0
          ? html`<p>No sign-in of theirs works now.</p>`
          : html`<table>
              <thead><tr><th scope="col">Kind</th><th scope="col">Started</th><th scope="col">Ends at the latest</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>${signIns.items.map(
                (s) => html`<tr>
                  <th scope="row">${s.kind === 'cli' ? 'svc command line' : 'browser'}<br /><code class="hint">${s.id}</code></th>
                  <td data-label="Started"><time datetime=${s.created_at}>${when(s.created_at, deps.clock.now())}</time></td>
                  <td data-label="Ends at the latest"><time datetime=${s.expires_at}>${when(s.expires_at, deps.clock.now())}</time></td>
                  <td>${end(`sign-ins/${s.id}/end`, `End sign-in ${s.id}`, 'End')}</td>
                </tr>`,
              )}</tbody>
            </table>
            <div class="actions">${end('sign-ins/end', `End every sign-in of ${name}`, 'End every sign-in')}</div>`
      }`;
    return render(c, page(assets, { title: user.username, section: 'people', viewer, body }));
  });

  app.post('/people/:name/sign-ins/end', async (c) => {
    const viewer = admin(c);
    await Auth.endSignIns(userDeps, viewer.identity, c.req.param('name'));
    return c.redirect(`${base}/people/${c.req.param('name')}`, 303);
  });

  app.post('/people/:name/sign-ins/:id/end', async (c) => {
    const viewer = admin(c);
    await Auth.endSignIn(userDeps, viewer.identity, c.req.param('name'), c.req.param('id'));
    return c.redirect(`${base}/people/${c.req.param('name')}`, 303);
  });
}
