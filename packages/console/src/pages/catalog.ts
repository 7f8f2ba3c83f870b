/** The catalog as the viewer may read it: projects, their components and baselines. */
import { Catalog, maxPageSize } from '@svc/core';
import { can } from '../access.ts';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleDeps } from '../context.ts';
import { when } from '../format.ts';
import { type Html, html } from '../html.ts';
import { page } from '../layout.ts';
import { render } from '../parts.ts';

function projectSection(
  project: Catalog.ProjectView,
  components: Catalog.ComponentView[],
  baselines: Catalog.BaselineView[],
  now: Date,
  previewUrl: ConsoleDeps['previewUrl'],
): Html {
  return html`<section aria-labelledby=${`project-${project.name}`}>
    <h2 id=${`project-${project.name}`}>${project.name}</h2>
    <p class="hint">Catalog version ${project.version}, applied ${when(project.applied_at, now)}; default baseline ${project.default_baseline}.</p>
    <table>
      <caption>Components</caption>
      <thead><tr><th scope="col">Component</th><th scope="col">Workload</th><th scope="col">Port</th><th scope="col">Depends on</th><th scope="col">Resources</th><th scope="col">Revision</th></tr></thead>
      <tbody>${components.map(
        (c) => html`<tr>
          <th scope="row">${c.name}</th>
          <td data-label="Workload"><code>${c.workload.kind}/${c.workload.name}</code> (${c.workload.container})</td>
          <td data-label="Port">${c.port}</td>
          <td data-label="Depends on">${c.dependencies.length ? c.dependencies.join(', ') : '—'}</td>
          <td data-label="Resources">${c.resources.cpu_millicores} mCPU, ${c.resources.memory_mib} MiB</td>
          <td data-label="Revision">${c.revision}</td>
        </tr>`,
      )}</tbody>
    </table>
    ${baselines.map(
      (b) => html`<table>
        <caption>Baseline ${b.name}: namespace <code>${b.namespace}</code> on ${b.cluster}, previews at <code>${previewUrl('*', b.preview_domain, b.cluster)}</code>, entry ${b.entry_component}${b.messaging ? ', messaging set up' : ''}</caption>
        <thead><tr><th scope="col">Component</th><th scope="col">Baseline image</th><th scope="col">Replicas</th></tr></thead>
        <tbody>${Object.entries(b.components)
          .sort(([x], [y]) => x.localeCompare(y))
          .map(
            ([name, component]) =>
              html`<tr><th scope="row">${name}</th><td data-label="Baseline image"><code>${component.image}</code></td><td data-label="Replicas">${component.replicas}</td></tr>`,
          )}</tbody>
      </table>`,
    )}
  </section>`;
}

export function catalogPages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  app.get('/catalog', async (c) => {
    const viewer = c.get('viewer');
    const all = { limit: maxPageSize, after: null };
    const projects = await Catalog.listProjects(deps, viewer.identity, all);
    const sections = await Promise.all(
      projects.items
        .filter((p) => can(viewer.identity, 'catalog:read', p.name))
        .map(async (p) => {
          const [components, baselines] = await Promise.all([
            Catalog.listComponents(deps, p.name, all),
            Catalog.listBaselines(deps, p.name, all),
          ]);
          return projectSection(p, components.items, baselines.items, deps.clock.now(), deps.previewUrl);
        }),
    );
    const body = html`<h1>Catalog</h1>
      ${sections.length ? sections : html`<p>No project you may read is registered.</p>`}`;
    return render(c, page(assets, { title: 'Catalog', section: 'catalog', viewer, body }));
  });
}
