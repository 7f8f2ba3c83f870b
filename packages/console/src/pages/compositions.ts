/** The composition list: filters by project, phase and owner; phases refresh in place every few seconds. */
import { Catalog, Compositions, maxPageSize } from '@svc/core';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleDeps, Viewer } from '../context.ts';
import { filterQuery, type ListFilter, matches, OwnerFilter, parseFilter } from '../filters.ts';
import { ago, interval, when } from '../format.ts';
import { type Html, html } from '../html.ts';
import { base, page } from '../layout.ts';
import { countdown, owner, phaseBadge, render } from '../parts.ts';

function overridesCell(view: Compositions.CompositionView): Html {
  const entries = Object.entries(view.desired.images);
  if (entries.length === 0) return html`<span class="hint">none (baseline only)</span>`;
  return html`<ul class="plain">${entries.map(
    ([component, image]) => html`<li><strong>${component}</strong> <code>${image.image}</code></li>`,
  )}</ul>`;
}

function rows(
  items: Compositions.CompositionView[],
  filter: ListFilter,
  after: string | null,
  now: Date,
  forgeWebUrl: string,
  refreshEvery: string,
): Html {
  return html`<tbody
    id="composition-rows"
    hx-get=${`${base}/compositions/rows${filterQuery(filter, after)}`}
    hx-trigger=${`every ${refreshEvery}`}
    hx-swap="outerMorph"
  >
    ${
      items.length === 0
        ? html`<tr><td colspan="7">No compositions match.</td></tr>`
        : items.map(
            (view) => html`<tr id=${`row-${view.id}`}>
              <td><a href=${`${base}/compositions/${view.id}`}>${view.name}</a><br /><code class="hint">${view.id}</code></td>
              <td data-label="Project / baseline">${view.project} / ${view.baseline}</td>
              <td data-label="Phase">${phaseBadge(view.phase)}</td>
              <td data-label="Overrides">${overridesCell(view)}</td>
              <td data-label="Owner">${owner(view.owner, forgeWebUrl)}</td>
              <td data-label="Expires in">${countdown(view.expires_at, now)}</td>
              <td data-label="Created"><time datetime=${view.created_at} title=${when(view.created_at, now)}>${ago(view.created_at, now)}</time></td>
            </tr>`,
          )
    }
  </tbody>`;
}

function filters(filter: ListFilter, projects: string[]): Html {
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value=${value} selected=${selected}>${label}</option>`;
  return html`<form class="filters" method="get" action=${`${base}/compositions`} role="search" aria-label="Filter compositions">
    <div>
      <label for="filter-project">Project</label>
      <select id="filter-project" name="project">
        ${option('', 'All projects', filter.project === null)}
        ${projects.map((p) => option(p, p, filter.project === p))}
      </select>
    </div>
    <div>
      <label for="filter-phase">Phase</label>
      <select id="filter-phase" name="phase">
        ${option('', 'Any phase', filter.phase === null)}
        ${Object.values(Compositions.Phase)
          .filter((p) => p !== Compositions.Phase.Destroyed)
          .map((p) => option(p, p, filter.phase === p))}
      </select>
    </div>
    <div>
      <label for="filter-owner">Owner</label>
      <select id="filter-owner" name="owner">
        ${option(OwnerFilter.Anyone, 'Anyone', filter.owner === OwnerFilter.Anyone)}
        ${option(OwnerFilter.Me, 'Me', filter.owner === OwnerFilter.Me)}
        ${option(OwnerFilter.People, 'People', filter.owner === OwnerFilter.People)}
        ${option(OwnerFilter.PullRequests, 'Pull requests', filter.owner === OwnerFilter.PullRequests)}
      </select>
    </div>
    <button type="submit">Filter</button>
  </form>`;
}

async function listed(deps: ConsoleDeps, viewer: Viewer, query: Record<string, string>) {
  const filter = parseFilter(query);
  const after = query.after && /^[A-Za-z0-9_-]{1,2048}$/.test(query.after) ? query.after : null;
  const result = await Compositions.list(
    deps,
    viewer.identity,
    { project: filter.project },
    { limit: maxPageSize, after },
  );
  const items = result.items.filter((view) => matches(view, filter, viewer.identity.subject));
  return { filter, after, items, next: result.next_cursor, scanned: result.items.length };
}

export function compositionListPages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  const forgeWebUrl = deps.forgeWebUrl ?? 'https://github.com';
  const refreshEvery = interval(deps.refreshMs ?? 3000);

  app.get('/compositions', async (c) => {
    const viewer = c.get('viewer');
    const [list, projects] = await Promise.all([
      listed(deps, viewer, c.req.query()),
      Catalog.listProjects(deps, viewer.identity, { limit: maxPageSize, after: null }),
    ]);
    const now = deps.clock.now();
    const body = html`
      <h1>Compositions</h1>
      ${filters(
        list.filter,
        projects.items.map((p) => p.name),
      )}
      <table>
        <caption>
          ${list.items.length} shown${list.scanned > list.items.length ? ` of ${list.scanned} on this page` : ''};
          phases refresh every ${refreshEvery} while scripts run.
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th><th scope="col">Project / baseline</th><th scope="col">Phase</th>
            <th scope="col">Overrides</th><th scope="col">Owner</th><th scope="col">Expires in</th><th scope="col">Created</th>
          </tr>
        </thead>
        ${rows(list.items, list.filter, list.after, now, forgeWebUrl, refreshEvery)}
      </table>
      ${
        list.next
          ? html`<p><a rel="next" href=${`${base}/compositions${filterQuery(list.filter, list.next)}`}>Next page</a></p>`
          : null
      }`;
    return render(c, page(assets, { title: 'Compositions', section: 'compositions', viewer, body }));
  });

  app.get('/compositions/rows', async (c) => {
    const list = await listed(deps, c.get('viewer'), c.req.query());
    const now = deps.clock.now();
    return render(c, rows(list.items, list.filter, list.after, now, forgeWebUrl, refreshEvery), 200, true);
  });
}
