/**
 * One composition: phase and reason, preview URL and curl line, TTL, sleep, components, owner, diagnosis,
 * verification checks, logs per component, then events. The live part and the events refresh in
 * place; a composition torn down keeps its history and diagnosis, nothing that points at what is gone.
 */
import { Checks, Compositions, Insight, Operations, type ProblemError } from '@svc/core';
import { can } from '../access.ts';
import type { Assets } from '../assets.ts';
import type { ConsoleApp, ConsoleContext, ConsoleDeps, Viewer } from '../context.ts';
import { ago, curlCommand, interval, phaseReason, readable, when } from '../format.ts';
import { logQuery } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { base, page } from '../layout.ts';
import {
  asProblem,
  badge,
  countdown,
  freshnessBadge,
  owner,
  phaseBadge,
  problemNotice,
  readyBadge,
  render,
  statusBadge,
} from '../parts.ts';

const finished: readonly Compositions.Phase[] = [Compositions.Phase.Destroying, Compositions.Phase.Destroyed];

interface Live {
  view: Compositions.CompositionView;
  diagnosis: Insight.DiagnosisView;
  checks: Checks.CheckView[];
  /** Its `slept` and `woke` events, for the pod-hours saved; null when it never sleeps. */
  sleepEvents: SleepEvents | null;
}

interface SleepEvents {
  events: Compositions.CompositionEvent[];
  /** False when the composition has more events than were read: the sum is a lower bound. */
  complete: boolean;
}

async function readLive(deps: ConsoleDeps, viewer: Viewer, id: string): Promise<Live> {
  const view = await Compositions.get(deps, viewer.identity, id);
  const [diagnosis, checks, sleepEvents] = await Promise.all([
    Insight.diagnose(deps, viewer.identity, id),
    Checks.list(deps, viewer.identity, id, { limit: 10, after: null }),
    view.sleep ? readSleepEvents(deps, viewer, id) : null,
  ]);
  return { view, diagnosis, checks: checks.items, sleepEvents };
}

/** At most this many events are read for the pod-hours: a day's previews sleep and wake far fewer times. */
const sleepEventPages = 5;

async function readSleepEvents(deps: ConsoleDeps, viewer: Viewer, id: string): Promise<SleepEvents> {
  const events: Compositions.CompositionEvent[] = [];
  let after: string | null = null;
  for (let page = 0; page < sleepEventPages; page++) {
    const read = await Compositions.listEvents(deps, viewer.identity, id, { limit: 200, after });
    events.push(...read.items.filter((e) => e.type === 'slept' || e.type === 'woke'));
    after = read.next_cursor;
    if (after === null) return { events, complete: true };
  }
  return { events, complete: false };
}

const sleepTone = { awake: 'ok', waking: 'busy', sleeping: 'idle' } as const;

/** Whether its forks sleep, since when, and the pod-hours their sleep saved (docs/sleep.md). */
function sleepFacts(view: Compositions.CompositionView, sleepEvents: SleepEvents | null, now: Date): Html {
  const { sleep } = view;
  if (!sleep || !sleepEvents || ended(view)) return null;
  const forks = Object.keys(view.overrides).length;
  const saved = Compositions.podHoursSaved(sleepEvents.events, forks, now);
  const state = html`<span data-sleep-state=${sleep.state}>${badge(sleepTone[sleep.state], sleep.state)}</span>`;
  const since = html`<time datetime=${sleep.since} title=${when(sleep.since, now)}>${ago(sleep.since, now)}</time>`;
  const amount = `${sleepEvents.complete ? '' : 'at least '}${saved.toFixed(1)}`;
  return html`<dl class="facts">
    <dt>Sleep</dt>
    <dd>${state} since ${since} <span class="hint">(after ${sleep.after} without a request or message)</span></dd>
    <dt>Pod-hours saved</dt>
    <dd><span data-pod-hours-saved=${String(saved)}>${amount}</span> <span class="hint">(each fork asleep, one pod per fork, for as long as it slept)</span></dd>
  </dl>`;
}

async function readEvents(deps: ConsoleDeps, viewer: Viewer, id: string) {
  return (await Compositions.listEvents(deps, viewer.identity, id, { limit: 50, after: null })).items;
}

/** Destroying or destroyed: no preview URL, lifetime or logs left to show. */
const ended = (view: Compositions.CompositionView) => finished.includes(view.phase);

function componentsTable(view: Compositions.CompositionView): Html {
  const overridden = Object.entries(view.desired.images).map(([component, image]) => {
    const observed = view.observed.components[component];
    return html`<tr>
      <th scope="row">${component}</th>
      <td data-label="Source">${badge('busy', 'overridden')}</td>
      <td data-label="Image"><code>${image.image}</code>${image.build_id ? html`<br /><span class="hint">build ${image.build_id}</span>` : null}</td>
      <td data-label="Readiness">${readyBadge(observed?.ready === true && observed.generation === view.generation)}</td>
    </tr>`;
  });
  const inherited = view.desired.inherited.map(
    (component) => html`<tr>
      <th scope="row">${component}</th>
      <td data-label="Source">${badge('idle', 'inherited')}</td>
      <td data-label="Image" class="hint">the baseline's</td>
      <td data-label="Readiness" class="hint">shared baseline</td>
    </tr>`,
  );
  return html`<table>
    <caption>Components</caption>
    <thead><tr><th scope="col">Component</th><th scope="col">Source</th><th scope="col">Image</th><th scope="col">Readiness</th></tr></thead>
    <tbody>${overridden}${inherited}</tbody>
  </table>`;
}

function diagnosisSection(diagnosis: Insight.DiagnosisView): Html {
  const v = diagnosis.verification;
  return html`<section aria-labelledby="diagnosis-title">
    <h2 id="diagnosis-title">Diagnosis</h2>
    <dl class="facts">
      <dt>State</dt><dd><strong data-diagnosis-state=${diagnosis.state}>${readable(diagnosis.state)}</strong></dd>
      <dt>Verification</dt>
      <dd>${statusBadge(v.status)} ${freshnessBadge(v.freshness)}
        ${v.generation === null ? null : html` <span class="hint">generation ${v.generation}</span>`}
        ${v.stale_reasons.length ? html`<span class="hint"> — ${v.stale_reasons.join('; ')}</span>` : null}</dd>
      <dt>Cleanup</dt>
      <dd>${readable(diagnosis.cleanup.state)}${diagnosis.cleanup.remaining?.length ? `: ${diagnosis.cleanup.remaining.join(', ')}` : ''}</dd>
    </dl>
    <h3>Blockers</h3>
    ${
      diagnosis.blockers.length
        ? html`<ul>${diagnosis.blockers.map(
            (b) =>
              html`<li><code>${b.code}</code>${b.component ? html` <strong>${b.component}</strong>` : null}: ${b.message}</li>`,
          )}</ul>`
        : html`<p class="hint">None.</p>`
    }
    <h3>Notes</h3>
    ${
      diagnosis.notes.length
        ? html`<ul>${diagnosis.notes.map((n) => html`<li><code>${n.code}</code>: ${n.message}</li>`)}</ul>`
        : html`<p class="hint">None.</p>`
    }
  </section>`;
}

function checksSection(checks: Checks.CheckView[], now: Date): Html {
  return html`<section aria-labelledby="checks-title">
    <h2 id="checks-title">Verification checks</h2>
    ${
      checks.length === 0
        ? html`<p class="hint">No check recorded yet.</p>`
        : html`<table>
            <thead><tr><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Freshness</th><th scope="col">Generation</th><th scope="col">Ran</th><th scope="col">Message</th></tr></thead>
            <tbody>${checks.map(
              (check) => html`<tr>
                <td data-label="Kind">${check.kind}</td>
                <td data-label="Status">${statusBadge(check.status)}</td>
                <td data-label="Freshness">${freshnessBadge(check.freshness)}${check.stale_reasons.length ? html`<br /><span class="hint">${check.stale_reasons.join('; ')}</span>` : null}</td>
                <td data-label="Generation">${check.generation}</td>
                <td data-label="Ran"><time datetime=${check.ran_at} title=${when(check.ran_at, now)}>${ago(check.ran_at, now)}</time></td>
                <td data-label="Message">${check.message}</td>
              </tr>`,
            )}</tbody>
          </table>`
    }
  </section>`;
}

function eventsSection(
  view: Compositions.CompositionView,
  events: Compositions.CompositionEvent[],
  now: Date,
  refreshEvery: string,
): Html {
  const live = view.phase !== Compositions.Phase.Destroyed;
  return html`<section
    id="events"
    aria-labelledby="events-title"
    hx-get=${live ? `${base}/compositions/${view.id}/events` : undefined}
    hx-trigger=${live ? `every ${refreshEvery}` : undefined}
    hx-swap="outerMorph"
  >
    <h2 id="events-title">Events</h2>
    ${
      events.length === 0
        ? html`<p class="hint">No events.</p>`
        : html`<ol class="timeline" reversed>${events.map(
            (e) => html`<li>
              <time datetime=${e.at} title=${when(e.at, now)}>${ago(e.at, now)}</time>
              <strong>${readable(e.type)}</strong> ${e.message}
              <span class="hint"> — ${e.actor.subject}, generation ${e.generation}</span>
            </li>`,
          )}</ol>`
    }
  </section>`;
}

/** A URL that wraps after its scheme, the host whole on the next line, rather than after its `c-`. */
function urlText(url: string): Html {
  const scheme = /^[a-z]+:\/\//.exec(url)?.[0] ?? '';
  return html`${scheme}<span class="unbroken">${url.slice(scheme.length)}</span>`;
}

/** Lifetime and where to reach the preview, while there is one. */
function reachFacts(view: Compositions.CompositionView, now: Date): Html {
  if (ended(view)) {
    return html`<dl class="facts">
      <dt>Lifetime</dt><dd>TTL ${view.ttl}; ${view.phase === Compositions.Phase.Destroyed ? 'torn down' : 'being torn down'}</dd>
      <dt>Preview URL</dt><dd class="hint">none: its routes go with the composition</dd>
    </dl>`;
  }
  const url = view.endpoints.public.url;
  const curlId = `curl-${view.id}`;
  return html`<dl class="facts">
    <dt>Expires in</dt><dd>${countdown(view.expires_at, now)} <span class="hint">(TTL ${view.ttl}, at ${when(view.expires_at, now)})</span></dd>
    <dt>Preview URL</dt>
    <dd><a href=${url} data-preview-url="">${urlText(url)}</a> ${readyBadge(view.endpoints.public.ready)}</dd>
    <dt>With curl</dt>
    <dd class="copy">
      <pre id=${curlId}>${curlCommand(url, view.id)}</pre>
      <button type="button" class="secondary" data-copy=${curlId} hidden>Copy</button>
    </dd>
  </dl>`;
}

function liveSection(viewer: Viewer, live: Live, now: Date, forgeWebUrl: string, refreshEvery: string): Html {
  const { view } = live;
  return html`<div
    id="live"
    hx-get=${`${base}/compositions/${view.id}/live`}
    hx-trigger=${`every ${refreshEvery}`}
    hx-swap="outerMorph"
  >
    ${actions(viewer, view)}
    <section aria-labelledby="status-title">
      <h2 id="status-title" class="visually-hidden">Status</h2>
      <p aria-live="polite">
        <span class="visually-hidden">Phase: </span>${phaseBadge(view.phase)}
        <span data-reason="">${phaseReason(view, now)}</span>
      </p>
      <div class="columns">
        <dl class="facts">
          <dt>Project / baseline</dt><dd>${view.project} / ${view.baseline}</dd>
          <dt>Cluster / namespace</dt><dd>${live.diagnosis.cluster ?? 'unknown'} / ${view.destination.namespace}</dd>
          <dt>Owner</dt><dd>${owner(view.owner, forgeWebUrl)}</dd>
          <dt>Generation</dt><dd>${view.generation} (observed ${view.observed_generation})</dd>
          <dt>Created</dt><dd><time datetime=${view.created_at} title=${when(view.created_at, now)}>${ago(view.created_at, now)}</time></dd>
        </dl>
        ${reachFacts(view, now)}
        ${sleepFacts(view, live.sleepEvents, now)}
      </div>
      ${componentsTable(view)}
    </section>
    ${diagnosisSection(live.diagnosis)}
    ${checksSection(live.checks, now)}
  </div>`;
}

function logsOutput(
  component: string | null,
  snapshot: Insight.LogSnapshot | null,
  problem: ProblemError | null,
): Html {
  return html`<div id="logs-output" aria-live="polite">
    ${problem ? problemNotice(problem) : null}
    ${
      snapshot
        ? html`<p>${snapshot.message}${snapshot.truncated ? ' (truncated)' : ''}${snapshot.partial ? ' (partial)' : ''}</p>
          ${
            snapshot.streams.length === 0
              ? html`<p class="hint">No pods to read.</p>`
              : snapshot.streams.map(
                  (s) => html`<h3 class="mono">${s.pod} / ${s.container}</h3>
                    <pre data-logs=${component}>${s.text || '(no lines)'}</pre>`,
                )
          }`
        : component
          ? null
          : html`<p class="hint">Choose a component and show its logs.</p>`
    }
  </div>`;
}

/** The component whose logs the form offers first: the one asked for, else the first override. */
function logComponent(view: Compositions.CompositionView, query: Record<string, string>): string {
  return query.component ?? Object.keys(view.desired.images)[0] ?? '';
}

function logsSection(view: Compositions.CompositionView, query: Record<string, string>, output: Html): Html {
  if (ended(view)) return null;
  const components = [...Object.keys(view.desired.images), ...view.desired.inherited];
  const chosen = logComponent(view, query);
  return html`<section id="logs" aria-labelledby="logs-title">
    <h2 id="logs-title">Logs</h2>
    <form
      method="get"
      action=${`${base}/compositions/${view.id}#logs`}
      hx-get=${`${base}/compositions/${view.id}/logs`}
      hx-target="#logs-output"
      hx-swap="outerHTML"
      class="filters"
    >
      <div>
        <label for="logs-component">Component</label>
        <select id="logs-component" name="component" required>
          <option value="">Choose…</option>
          ${components.map(
            (c) =>
              html`<option value=${c} selected=${chosen === c}>${c}${c in view.desired.images ? ' (override)' : ' (shared baseline)'}</option>`,
          )}
        </select>
      </div>
      <div>
        <label for="logs-tail">Tail lines</label>
        <input id="logs-tail" type="number" name="tail_lines" min="1" max=${Insight.logLimits.tailLines.max} value=${query.tail_lines ?? Insight.logLimits.tailLines.default} />
      </div>
      <div>
        <label for="logs-since">Since (seconds)</label>
        <input id="logs-since" type="number" name="since_seconds" min="1" max=${Insight.logLimits.sinceSeconds.max} value=${query.since_seconds ?? ''} />
      </div>
      <div>
        <label for="logs-previous"><input id="logs-previous" type="checkbox" name="previous" checked=${query.previous === 'on'} /> Previous container</label>
      </div>
      <button type="submit">Show logs</button>
    </form>
    ${output}
  </section>`;
}

async function readLogs(deps: ConsoleDeps, viewer: Viewer, id: string, query: Record<string, string>) {
  const component = query.component ?? '';
  if (!component) return logsOutput(null, null, null);
  try {
    const snapshot = await Insight.componentLogs(deps, viewer.identity, id, component, logQuery(query));
    return logsOutput(component, snapshot, null);
  } catch (error) {
    return logsOutput(component, null, asProblem(error));
  }
}

function actions(viewer: Viewer, view: Compositions.CompositionView): Html {
  if (!can(viewer.identity, 'composition:write', view.project)) return null;
  const updatable =
    view.owner.kind === Operations.OwnerKind.User &&
    (view.phase === Compositions.Phase.Ready || view.phase === Compositions.Phase.Failed);
  return html`<div class="actions">
    ${updatable ? html`<a class="button" href=${`${base}/compositions/${view.id}/edit`}>Update overrides</a>` : null}
    ${
      ended(view)
        ? null
        : html`<a class="button danger" href=${`${base}/compositions/${view.id}/destroy`}>Destroy…</a>`
    }
  </div>`;
}

export function compositionPages(app: ConsoleApp, deps: ConsoleDeps, assets: Assets): void {
  const forgeWebUrl = deps.forgeWebUrl ?? 'https://github.com';
  const refreshEvery = interval(deps.refreshMs ?? 2000);
  const id = (c: ConsoleContext) => c.req.param('id') ?? '';

  app.get('/compositions/:id', async (c) => {
    const viewer = c.get('viewer');
    const query = c.req.query();
    const [live, events, logs] = await Promise.all([
      readLive(deps, viewer, id(c)),
      readEvents(deps, viewer, id(c)),
      readLogs(deps, viewer, id(c), query),
    ]);
    const { view } = live;
    const now = deps.clock.now();
    const body = html`
      <p><a href=${`${base}/compositions`}>← All compositions</a></p>
      <h1>${view.name} <code class="hint unbroken">${view.id}</code></h1>
      ${liveSection(viewer, live, now, forgeWebUrl, refreshEvery)}
      ${logsSection(view, query, logs)}
      ${eventsSection(view, events, now, refreshEvery)}`;
    return render(c, page(assets, { title: view.name, section: 'compositions', viewer, body }));
  });

  app.get('/compositions/:id/live', async (c) => {
    const live = await readLive(deps, c.get('viewer'), id(c));
    return render(
      c,
      liveSection(c.get('viewer'), live, deps.clock.now(), forgeWebUrl, refreshEvery),
      200,
      true,
    );
  });

  app.get('/compositions/:id/events', async (c) => {
    const viewer = c.get('viewer');
    const [view, events] = await Promise.all([
      Compositions.get(deps, viewer.identity, id(c)),
      readEvents(deps, viewer, id(c)),
    ]);
    return render(c, eventsSection(view, events, deps.clock.now(), refreshEvery), 200, true);
  });

  app.get('/compositions/:id/logs', async (c) =>
    render(c, await readLogs(deps, c.get('viewer'), id(c), c.req.query()), 200, true),
  );
}
