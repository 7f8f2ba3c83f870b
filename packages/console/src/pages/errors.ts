/**
 * The errors document served where every problem's `type` points (`/docs/errors.md#<code>`), so the
 * link in an answer resolves on the API itself. Drawn from core's error catalog, the source
 * docs/errors.md is checked against, so a deployed API needs no file beside its bundle.
 */
import { errorCatalog } from '@svc/core';
import { loadAssets } from '../assets.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import { documentText } from '../parts.ts';

/** The page, once: it depends on nothing but the catalog. */
export function errorsDocument(): Promise<string> {
  const rows = Object.entries(errorCatalog).map(
    ([code, entry]) => html`<tr id=${code}>
      <td><a href=${`#${code}`}><code>${code}</code></a></td>
      <td>${entry.status}</td>
      <td>${entry.title}</td>
      <td>${entry.description}</td>
    </tr>`,
  );
  const body = html`<h1>Errors</h1>
    <p>Every error is an RFC 9457 <code>application/problem+json</code> body with <code>type</code> (a
      link to its entry below), <code>title</code>, <code>status</code>, <code>detail</code> (what went
      wrong this time), <code>code</code>, <code>errors</code> (each offending field as a JSON pointer,
      the name of a query parameter or a header) and <code>instance</code> (the request id, also the${' '}
      <code>x-request-id</code> header).</p>
    <p><code>code</code> is stable: program against it, not against <code>title</code> or${' '}
      <code>detail</code>. A 500 carries nothing but the request id to report.</p>
    <table>
      <thead><tr><th scope="col">code</th><th scope="col">status</th><th scope="col">title</th><th scope="col">meaning</th></tr></thead>
      <tbody>${rows}</tbody>
    </table>`;
  return documentText(
    page(loadAssets(), { title: 'Errors', section: null, viewer: null, body, scripts: false }),
  );
}
