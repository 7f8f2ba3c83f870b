/**
 * Sign-in: a password form posting to /auth/login, a hand-off to the identity provider, or nothing
 * to do; and the service's own sign-in pages (`/auth/login`, its retry page, the CLI's consent,
 * the failures), drawn in the console's layout with no script.
 */
import { Auth } from '@svc/core';
import { type Assets, loadAssets } from '../assets.ts';
import type { ConsoleApp, ConsoleDeps } from '../context.ts';
import { type Html, html } from '../html.ts';
import { base, page } from '../layout.ts';
import { documentText, render } from '../parts.ts';

/** Only the console's own pages: never an address someone could send a person away to. */
export function safeReturnTo(value: string | undefined): string {
  const path = Auth.safeReturnPath(value);
  return path.startsWith(`${base}/`) ? path : Auth.homePath;
}

interface SignInForm {
  /** A path already made safe. */
  returnTo: string;
  username: string;
  error: string | null;
}

/** Where `svc auth login` is told the person gave up: only when the sign-in is the CLI's. */
function cancelHref(returnTo: string): string | null {
  const url = new URL(returnTo, 'http://service.invalid');
  if (url.pathname !== '/auth/authorize') return null;
  url.searchParams.set('cancel', 'cancelled');
  return url.pathname + url.search;
}

function passwordForm(form: SignInForm): Html {
  const cancel = cancelHref(form.returnTo);
  return html`${form.error ? html`<div class="error" role="alert">${form.error}</div>` : null}
    <form method="post" action="/auth/login">
      <input type="hidden" name="return_to" value=${form.returnTo} />
      <div class="field"><label for="username">User name</label>
        <input type="text" id="username" name="username" autocomplete="username" value=${form.username} required autofocus /></div>
      <div class="field"><label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required /></div>
      <button type="submit">Sign in</button>
    </form>
    ${
      cancel
        ? html`<p class="hint">Signing in the <code>svc</code> command line?${' '}
            <a href=${cancel}>Cancel the sign-in</a> to stop it waiting.</p>`
        : null
    }`;
}

function signInBody(mode: Auth.AuthMode, returnTo: string): Html {
  if (mode === Auth.AuthMode.Password) return passwordForm({ returnTo, username: '', error: null });
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

/** What the CLI's consent page shows and posts back (the authorization request, unchanged). */
interface Consent {
  subject: string;
  roles: string;
  /** The loopback address the CLI listens on. */
  redirectUri: string;
  request: Record<string, string>;
  csrfToken: string;
}

function consentBody(consent: Consent): Html {
  const listener = new URL(consent.redirectUri);
  return html`<h1>Sign in the svc CLI on this computer?</h1>
    <p>The <strong>svc command-line client</strong>, waiting on port <strong>${listener.port}</strong> of
      this computer (${listener.hostname}), asks to act as <strong>${consent.subject}</strong>${' '}
      (${consent.roles}) for up to 30 days.</p>
    <p class="hint">Allow only if you ran <code>svc auth login</code> on this computer just now: whatever
      listens on that port gets your access.</p>
    <form method="post" action="/auth/authorize">
      ${Object.entries(consent.request).map(
        ([name, value]) => html`<input type="hidden" name=${name} value=${value} />`,
      )}
      <input type="hidden" name="csrf_token" value=${consent.csrfToken} />
      <div class="actions">
        <button type="submit" name="decision" value="allow">Allow</button>
        <button class="secondary" type="submit" name="decision" value="deny">Cancel</button>
      </div>
    </form>`;
}

export interface AuthDocuments {
  signIn(form: SignInForm): Promise<string>;
  consent(consent: Consent): Promise<string>;
  message(title: string, message: string): Promise<string>;
}

/** The pages of `/auth/*`, so a person never meets a bare page or raw JSON while signing in. */
export function authDocuments(): AuthDocuments {
  const assets = loadAssets();
  const document = (title: string, body: Html) =>
    documentText(page(assets, { title, section: null, viewer: null, body, scripts: false }));
  return {
    signIn: (form) => document('Sign in', html`<h1>Sign in</h1>${passwordForm(form)}`),
    consent: (consent) => document('Sign in the svc CLI', consentBody(consent)),
    message: (title, message) =>
      document(
        title,
        html`<h1>${title}</h1><p>${message}</p><p><a href=${`${base}/sign-in`}>Sign in again</a></p>`,
      ),
  };
}
