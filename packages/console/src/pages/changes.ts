/**
 * Create (plan first, then create what was planned), update (carrying the expected generation) and
 * destroy (after a confirmation). Each change calls the same use case as its REST route.
 */
import { randomUUID } from 'node:crypto';
import { Catalog, Compositions, ErrorCode, maxPageSize, ProblemError, parseOrThrow, sha256 } from '@svc/core';
import { can } from '../access.ts';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleContext, ConsoleDeps, Viewer } from '../context.ts';
import { costEstimate, count, when } from '../format.ts';
import { createBody, type Fields, fieldsOf, overrideRows, updateBody } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { base, csrfField, page } from '../layout.ts';
import { asProblem, badge, problemNotice, render } from '../parts.ts';

const plannedFingerprint = (body: unknown) => sha256(JSON.stringify(body));

function field(id: string, label: string, input: Html, hint: string | null = null): Html {
  return html`<div class="field">
    <label for=${id}>${label}${hint ? html` <span class="hint">${hint}</span>` : null}</label>
    ${input}
  </div>`;
}

function overridesFieldset(fields: Fields, components: string[]): Html {
  return html`<fieldset>
    <legend>Overrides (up to ${Compositions.maxOverrides}; every other component is inherited)</legend>
    ${overrideRows(fields).map(
      (row, n) => html`<div class="row">
        ${field(
          `override-component-${n}`,
          `Component ${n + 1}`,
          html`<select id=${`override-component-${n}`} name=${`override_component_${n}`}>
            <option value="">None</option>
            ${components.map((c) => html`<option value=${c} selected=${row.component === c}>${c}</option>`)}
          </select>`,
        )}
        ${field(
          `override-image-${n}`,
          'Image',
          html`<input type="text" id=${`override-image-${n}`} name=${`override_image_${n}`} value=${row.image} size="48" placeholder="registry.example.com/team/app:1.2.3" />`,
        )}
        ${field(
          `override-build-${n}`,
          'Build id',
          html`<input type="text" id=${`override-build-${n}`} name=${`override_build_id_${n}`} value=${row.build_id} />`,
          'instead of an image: a build CI published',
        )}
      </div>`,
    )}
  </fieldset>`;
}

function planPanel(plan: Compositions.PlanView, now: Date): Html {
  const cost = costEstimate(plan.resource_estimate, plan.lifetime, now);
  return html`<section aria-labelledby="plan-title" id="plan">
    <h2 id="plan-title">Plan</h2>
    ${
      plan.blockers.length
        ? html`<div class="error" role="alert"><strong>Blocked:</strong> fix these before creating.
            <ul>${plan.blockers.map(
              (b) =>
                html`<li><code>${b.code}</code>${b.component ? html` <strong>${b.component}</strong>` : null}: ${b.message}</li>`,
            )}</ul></div>`
        : html`<p class="notice" role="status">No blockers: this can be created.</p>`
    }
    ${
      plan.cautions.length
        ? html`<div class="warning"><strong>Cautions</strong>
            <ul>${plan.cautions.map((w) => html`<li><code>${w.code}</code>: ${w.message}</li>`)}</ul></div>`
        : null
    }
    <div class="columns">
      <table>
        <caption>Images</caption>
        <thead><tr><th scope="col">Component</th><th scope="col">Image</th><th scope="col">From</th></tr></thead>
        <tbody>${Object.entries(plan.images).map(
          ([component, image]) => html`<tr>
            <th scope="row">${component}</th><td data-label="Image"><code>${image.image}</code></td>
            <td data-label="From">${image.source}${image.build_id ? ` ${image.build_id}` : ''}</td>
          </tr>`,
        )}</tbody>
      </table>
      <dl class="facts">
        <dt>Inherited</dt><dd>${plan.inherited.length ? plan.inherited.join(', ') : 'nothing'}</dd>
        <dt>Destination</dt><dd>${plan.destination ? html`${plan.destination.cluster} / ${plan.destination.namespace}` : '—'}</dd>
        <dt>Lifetime</dt><dd>${plan.lifetime.ttl ?? '—'}${plan.lifetime.expires_at ? ` (until ${when(plan.lifetime.expires_at, now)})` : ''}</dd>
        <dt>Resources</dt><dd>${plan.resource_estimate.cpu_millicores} mCPU, ${plan.resource_estimate.memory_mib} MiB, ${count(plan.resource_estimate.pods, 'pod')}</dd>
        <dt>Cost estimate</dt>
        <dd>${cost ? `${cost.cpuCoreHours} CPU core-hours and ${cost.memoryGibHours} GiB-hours over ${cost.hours} h` : '—'}</dd>
      </dl>
    </div>
  </section>`;
}

interface CreateForm {
  fields: Fields;
  projects: string[];
  project: string;
  baselines: string[];
  components: string[];
  plan: Compositions.PlanView | null;
  problem: ProblemError | null;
  notice: string | null;
}

/** Name, baseline and TTL: the create form's first row. */
function basicsRow(fields: Fields, baselines: string[]): Html {
  return html`<div class="row">
    ${field(
      'name',
      'Name',
      html`<input type="text" id="name" name="name" value=${fields.name ?? ''} required pattern="[a-z0-9]([a-z0-9\\-]*[a-z0-9])?" maxlength="63" autocomplete="off" />`,
      'a DNS label',
    )}
    ${field(
      'baseline',
      'Baseline',
      html`<select id="baseline" name="baseline">
        <option value="" selected=${!fields.baseline}>the project's default</option>
        ${baselines.map((b) => html`<option value=${b} selected=${fields.baseline === b}>${b}</option>`)}
      </select>`,
    )}
    ${field(
      'ttl',
      'TTL',
      html`<input type="text" id="ttl" name="ttl" value=${fields.ttl ?? ''} placeholder="4h" size="6" />`,
      '1m to 24h',
    )}
  </div>`;
}

/** Plan (again) and Create; Create only once a plan without blockers stands. */
function createActions(plan: Compositions.PlanView | null): Html {
  const creatable = plan !== null && plan.blockers.length === 0;
  const hint = plan
    ? creatable
      ? 'Creates exactly what was planned.'
      : 'Blocked: see the plan.'
    : 'Plan first: the plan shows what would be created.';
  return html`<div class="actions">
    <button type="submit" class=${plan ? 'secondary' : ''}>${plan ? 'Plan again' : 'Plan'}</button>
    <button type="submit" formaction=${`${base}/compositions`} disabled=${!creatable} aria-describedby="create-hint">Create</button>
    <span id="create-hint" class="hint">${hint}</span>
  </div>`;
}

function createForm(viewer: Viewer, input: CreateForm, now: Date): Html {
  const { fields, plan } = input;
  const projectOptions = input.projects.map(
    (p) => html`<option value=${p} selected=${p === input.project}>${p}</option>`,
  );
  return html`
    <h1>New composition</h1>
    <form method="get" action=${`${base}/compositions/new`} class="filters" aria-label="Choose the project">
      ${field('choose-project', 'Project', html`<select id="choose-project" name="project">${projectOptions}</select>`)}
      <button type="submit" class="secondary">Switch project</button>
    </form>
    ${input.notice ? html`<p class="warning" role="status">${input.notice}</p>` : null}
    ${input.problem ? problemNotice(input.problem) : null}
    <form method="post" action=${`${base}/compositions/plan`}>
      ${csrfField(viewer)}
      <input type="hidden" name="project" value=${input.project} />
      ${plan ? html`<input type="hidden" name="planned" value=${fields.planned ?? ''} />` : null}
      ${plan ? html`<input type="hidden" name="idempotency_key" value=${fields.idempotency_key ?? ''} />` : null}
      ${basicsRow(fields, input.baselines)}
      ${overridesFieldset(fields, input.components)}
      <div class="field">
        <label for="message-isolation"><input type="checkbox" id="message-isolation" name="message_isolation" checked=${fields.message_isolation === 'on'} /> Message isolation</label>
      </div>
      ${createActions(plan)}
    </form>
    ${plan ? planPanel(plan, now) : null}`;
}

async function createFormInput(
  deps: ConsoleDeps,
  viewer: Viewer,
  wanted: string | undefined,
): Promise<Omit<CreateForm, 'fields' | 'plan' | 'problem' | 'notice'>> {
  const listed = await Catalog.listProjects(deps, viewer.identity, { limit: maxPageSize, after: null });
  const writable = listed.items.filter((p) => can(viewer.identity, 'composition:write', p.name));
  const chosen = writable.find((p) => p.name === wanted) ?? writable[0];
  if (!chosen) {
    throw new ProblemError(
      ErrorCode.Forbidden,
      'You may create compositions in no project; ask an Admin for a developer grant.',
    );
  }
  return {
    projects: writable.map((p) => p.name),
    project: chosen.name,
    baselines: chosen.baselines,
    components: chosen.components,
  };
}

/** A change page; one of an existing composition is under Compositions in the navigation. */
function rendered(
  c: ConsoleContext,
  assets: Assets,
  viewer: Viewer,
  body: Html,
  title: string,
  status = 200,
) {
  const section = c.req.param('id') ? 'compositions' : 'new';
  return render(c, page(assets, { title, section, viewer, body }), status);
}

async function newComposition(c: ConsoleContext, deps: ConsoleDeps, assets: Assets) {
  const viewer = c.get('viewer');
  const input = await createFormInput(deps, viewer, c.req.query('project'));
  const form = createForm(
    viewer,
    { ...input, fields: {}, plan: null, problem: null, notice: null },
    deps.clock.now(),
  );
  return rendered(c, assets, viewer, form, 'New composition');
}

/** Plans what the form says; the plan's fingerprint and a fresh idempotency key ride along to the create. */
async function planned(
  c: ConsoleContext,
  deps: ConsoleDeps,
  assets: Assets,
  notice: string | null,
  problem: ProblemError | null = null,
) {
  const viewer = c.get('viewer');
  const fields = { ...c.get('fields') };
  const input = await createFormInput(deps, viewer, fields.project);
  let plan: Compositions.PlanView | null = null;
  try {
    // The project as posted: one the viewer may not use is the plan's blocker, as over REST.
    const body = createBody(fields);
    plan = await Compositions.plan(
      deps,
      viewer.identity,
      parseOrThrow(Compositions.CreateCompositionBody, body),
    );
    fields.planned = plannedFingerprint(body);
    fields.idempotency_key = randomUUID();
  } catch (error) {
    problem = asProblem(error);
  }
  const form = createForm(viewer, { ...input, fields, plan, problem, notice }, deps.clock.now());
  return rendered(c, assets, viewer, form, 'Plan', problem?.status ?? 200);
}

/** Creates exactly what was planned; anything else gets the plan (again) instead. */
async function create(c: ConsoleContext, deps: ConsoleDeps, assets: Assets) {
  const viewer = c.get('viewer');
  const fields = c.get('fields');
  let body: ReturnType<typeof createBody>;
  try {
    body = createBody(fields);
  } catch {
    // The plan shows the same refusal, with the form as it was.
    return planned(c, deps, assets, null);
  }
  if (!fields.planned || fields.planned !== plannedFingerprint(body)) {
    return planned(
      c,
      deps,
      assets,
      'The form changed since it was planned: here is the plan for what it says now.',
    );
  }
  try {
    const key = fields.idempotency_key;
    // Scoped as the API's create, so a key is one create whichever way it came in.
    const idempotency = key ? { operation: 'createComposition', key, payload: body } : null;
    const input = parseOrThrow(Compositions.CreateCompositionBody, body);
    const created = await Compositions.create(deps, viewer.identity, input, idempotency);
    return c.redirect(`${base}/compositions/${created.body.id}`, 303);
  } catch (error) {
    return planned(c, deps, assets, null, asProblem(error));
  }
}

function editForm(
  viewer: Viewer,
  view: Compositions.CompositionView,
  components: string[],
  fields: Fields,
  problem: ProblemError | null,
): Html {
  return html`
    <p><a href=${`${base}/compositions/${view.id}`}>← ${view.name}</a></p>
    <h1>Update ${view.name}</h1>
    <p>The new override set replaces the current one completely. It applies to generation${' '}
      <strong>${fields.expected_generation}</strong>; if someone changed the composition since, the update is refused.</p>
    ${problem ? problemNotice(problem) : null}
    <form method="post" action=${`${base}/compositions/${view.id}/update`}>
      ${csrfField(viewer)}
      <input type="hidden" name="expected_generation" value=${fields.expected_generation ?? ''} />
      ${overridesFieldset(fields, components)}
      <div class="actions"><button type="submit">Update</button>
        <a class="button secondary" href=${`${base}/compositions/${view.id}`}>Cancel</a></div>
    </form>`;
}

async function componentsOf(deps: ConsoleDeps, viewer: Viewer, project: string): Promise<string[]> {
  if (!can(viewer.identity, 'catalog:read', project)) return [];
  const listed = await Catalog.listComponents(deps, project, { limit: maxPageSize, after: null });
  return listed.items.map((c) => c.name);
}

async function edit(c: ConsoleContext, deps: ConsoleDeps, assets: Assets) {
  const viewer = c.get('viewer');
  const view = await Compositions.get(deps, viewer.identity, c.req.param('id') ?? '');
  const components = await componentsOf(deps, viewer, view.project);
  const form = editForm(viewer, view, components, fieldsOf(view), null);
  return rendered(c, assets, viewer, form, `Update ${view.name}`);
}

/** The update; a refusal shows the form again as it was posted, with the problem. */
async function update(c: ConsoleContext, deps: ConsoleDeps, assets: Assets) {
  const viewer = c.get('viewer');
  const id = c.req.param('id') ?? '';
  const fields = c.get('fields');
  try {
    const input = parseOrThrow(Compositions.UpdateCompositionBody, updateBody(fields));
    await Compositions.update(deps, viewer.identity, id, input);
    return c.redirect(`${base}/compositions/${id}`, 303);
  } catch (error) {
    const problem = asProblem(error);
    const view = await Compositions.get(deps, viewer.identity, id);
    const components = await componentsOf(deps, viewer, view.project);
    const form = editForm(viewer, view, components, fields, problem);
    return rendered(c, assets, viewer, form, `Update ${view.name}`, problem.status);
  }
}

async function confirmDestroy(c: ConsoleContext, deps: ConsoleDeps, assets: Assets) {
  const viewer = c.get('viewer');
  const view = await Compositions.get(deps, viewer.identity, c.req.param('id') ?? '');
  const body = html`
    <h1>Destroy ${view.name}?</h1>
    <p>This deletes the composition <code>${view.id}</code> ${badge('idle', view.phase)}: its forks, routes and
        message subscriptions. The preview URL stops answering. It cannot be undone.</p>
    <form method="post" action=${`${base}/compositions/${view.id}/destroy`}>
      ${csrfField(viewer)}
      <div class="actions">
        <button type="submit" class="danger">Destroy ${view.name}</button>
        <a class="button secondary" href=${`${base}/compositions/${view.id}`}>Keep it</a>
      </div>
    </form>`;
  return rendered(c, assets, viewer, body, `Destroy ${view.name}`);
}

async function destroy(c: ConsoleContext, deps: ConsoleDeps) {
  const { identity } = c.get('viewer');
  const id = c.req.param('id') ?? '';
  await Compositions.destroy(
    deps,
    { actor: { kind: 'user', subject: identity.subject }, grants: identity.grants },
    id,
  );
  return c.redirect(`${base}/compositions/${id}`, 303);
}

export function changePages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  app.get('/compositions/new', (c) => newComposition(c, deps, assets));
  app.post('/compositions/plan', (c) => planned(c, deps, assets, null));
  app.post('/compositions', (c) => create(c, deps, assets));
  app.get('/compositions/:id/edit', (c) => edit(c, deps, assets));
  app.post('/compositions/:id/update', (c) => update(c, deps, assets));
  app.get('/compositions/:id/destroy', (c) => confirmDestroy(c, deps, assets));
  app.post('/compositions/:id/destroy', (c) => destroy(c, deps));
}
