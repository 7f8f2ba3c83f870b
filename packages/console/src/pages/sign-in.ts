/** Sign-in: a password form posting to /auth/login, a hand-off to the identity provider, or nothing to do. */
import { Auth } from '@svc/core';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleDeps } from '../context.ts';
import { type Html, html } from '../html.ts';
import { base, page } from '../layout.ts';
import { render } from '../parts.ts';

/** Only the console's own pages: never an address someone could send a person away to. */
export function safeReturnTo(value: string | undefined): string {
  return value?.startsWith(`${base}/`) && !value.includes('\\') && !value.startsWith('//')
    ? value
    : `${base}/compositions`;
}

function signInBody(mode: Auth.AuthMode, returnTo: string): Html {
  if (mode === Auth.AuthMode.Password) {
    return html`<form method="post" action="/auth/login">
      <input type="hidden" name="return_to" value=${returnTo} />
      <div class="field"><label for="username">User name</label>
        <input type="text" id="username" name="username" autocomplete="username" required autofocus /></div>
      <div class="field"><label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required /></div>
      <button type="submit">Sign in</button>
    </form>`;
  }
  if (mode === Auth.AuthMode.Oidc) {
    return html`<p>This installation signs people in at its identity provider.</p>
      <p><a class="button" href=${`/auth/login?return_to=${encodeURIComponent(returnTo)}`}>Sign in with the identity provider</a></p>`;
  }
  return html`<p>This installation (${mode} mode) has no browser sign-in: it accepts bearer tokens only.
    Use the <code>svc</code> command line with <code>SVC_API_TOKEN</code>, or ask for a password or identity-provider installation.</p>`;
}

export function signInPages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  app.get('/sign-in', async (c) => {
    const returnTo = safeReturnTo(c.req.query('return_to'));
    // Dev and anonymous modes have nobody to sign in: the browser already is the mode's identity.
    if (await deps.browser.viewer(c)) return c.redirect(returnTo, 303);
    const body = html`<h1>Sign in</h1>${signInBody(deps.browser.mode, returnTo)}`;
    return render(c, page(assets, { title: 'Sign in', section: null, viewer: null, body }));
  });
}
