import { can } from './access.ts';
import type { Assets } from './assets.ts';
import type { Viewer } from './context.ts';
import { type Html, html } from './html.ts';

export const base = '/console';

type Section = 'compositions' | 'new' | 'catalog' | 'tokens' | 'people' | 'previews' | null;

interface PageInput {
  title: string;
  section: Section;
  viewer: Viewer | null;
  body: Html;
  /** Sign-in pages run no script at all (their policy allows none). */
  scripts?: boolean;
}

/** htmx swaps error answers too; the indicator style comes from our stylesheet (no injected CSS). */
const htmxConfig = JSON.stringify({ includeIndicatorCSS: false });

/** Whether the viewer may create in some project (the create form asks which): a grant allows it. */
function mayCreate(viewer: Viewer): boolean {
  return viewer.identity.grants.some((grant) =>
    can(viewer.identity, 'composition:write', grant.project === '*' ? null : grant.project),
  );
}

function navigation(viewer: Viewer, section: Section): Html {
  const link = (to: Section, href: string, label: string) =>
    html`<li><a href=${href} aria-current=${section === to ? 'page' : undefined}>${label}</a></li>`;
  return html`<nav aria-label="Main">
    <ul>
      ${link('compositions', `${base}/compositions`, 'Compositions')}
      ${mayCreate(viewer) ? link('new', `${base}/compositions/new`, 'New composition') : null}
      ${link('previews', `${base}/pr-previews`, 'Pull-request previews')}
      ${link('catalog', `${base}/catalog`, 'Catalog')}
      ${can(viewer.identity, 'token:manage', null) ? link('tokens', `${base}/tokens`, 'Tokens') : null}
      ${can(viewer.identity, 'user:manage', null) ? link('people', `${base}/people`, 'People') : null}
    </ul>
  </nav>`;
}

function who(viewer: Viewer): Html {
  const roles = viewer.identity.grants.map((g) => `${g.role} on ${g.project}`).join(', ');
  return html`<div class="who">
    <span><span class="visually-hidden">Signed in as </span><strong>${viewer.identity.subject}</strong>
      <span class="hint"> (${roles || 'no grants'})</span></span>
    ${
      viewer.csrfToken
        ? html`<form method="post" action="/auth/logout">
            <input type="hidden" name="csrf_token" value=${viewer.csrfToken} />
            <input type="hidden" name="return_to" value=${`${base}/sign-in`} />
            <button class="secondary" type="submit">Sign out</button>
          </form>`
        : html`<span class="badge idle">${viewer.mode} mode</span>`
    }
  </div>`;
}

export function page(assets: Assets, input: PageInput): Html {
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      ${input.scripts === false ? null : html`<meta name="htmx-config" content=${htmxConfig} />`}
      <title>${input.title} · Preview Composition Service</title>
      <link rel="icon" type="image/svg+xml" href=${base + assets.icon.path} />
      <link rel="stylesheet" href=${base + assets.style.path} />
      ${
        input.scripts === false
          ? null
          : html`<script src=${base + assets.htmx.path} defer></script>
              <script src=${base + assets.script.path} defer></script>`
      }
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href=${`${base}/compositions`}>Preview Composition Service</a>
        ${input.viewer ? navigation(input.viewer, input.section) : null}
        ${input.viewer ? who(input.viewer) : null}
      </header>
      <main id="main" tabindex="-1">${input.body}</main>
    </body>
  </html>`;
}

/** The CSRF token every change form carries (empty where the mode has no session). */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="csrf_token" value=${viewer.csrfToken ?? ''} />`;
}
