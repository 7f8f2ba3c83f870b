/** Small pieces several pages show: badges, owners, countdowns, error notices, rendering. */
import { type Compositions, Operations, ProblemError } from '@svc/core';
import type { Context } from 'hono';
import { pullRequestUrl, remaining } from './format.ts';
import { type Html, html } from './html.ts';

type Tone = 'ok' | 'bad' | 'busy' | 'idle';

export function badge(tone: Tone, text: string): Html {
  return html`<span class=${`badge ${tone}`}>${text}</span>`;
}

const phaseTone: Record<Compositions.Phase, Tone> = {
  created: 'busy',
  provisioning: 'busy',
  updating: 'busy',
  ready: 'ok',
  failed: 'bad',
  expired: 'idle',
  destroying: 'idle',
  destroyed: 'idle',
};

export function phaseBadge(phase: Compositions.Phase): Html {
  return html`<span class=${`badge ${phaseTone[phase]}`} data-phase=${phase}>${phase}</span>`;
}

export function readyBadge(ready: boolean): Html {
  return ready ? badge('ok', 'ready') : badge('busy', 'not ready');
}

export function freshnessBadge(freshness: string | null): Html {
  if (freshness === 'fresh') return badge('ok', 'fresh');
  if (freshness === 'stale') return badge('bad', 'stale');
  return badge('idle', freshness ?? 'none');
}

export function statusBadge(status: string): Html {
  const tone: Tone = status === 'passed' ? 'ok' : status === 'failed' ? 'bad' : 'idle';
  return badge(tone, status);
}

/** A TTL that counts down every second where scripts run, and reads right where they do not. */
export function countdown(expiresAt: string, now: Date): Html {
  return html`<time datetime=${expiresAt} data-countdown="" title=${expiresAt}>${remaining(expiresAt, now)}</time>`;
}

export function owner(value: Compositions.CompositionView['owner'], forgeWebUrl: string): Html {
  if (value.kind === Operations.OwnerKind.Forge) {
    const url = pullRequestUrl(value.subject, forgeWebUrl);
    return html`<span>pull request ${url ? html`<a href=${url}>${value.subject}</a>` : value.subject}</span>`;
  }
  return html`<span>${value.subject}</span>`;
}

/** A refusal or rule broken, said where the person looks, with the field errors the API would give. */
export function problemNotice(error: ProblemError): Html {
  return html`<div class="error" role="alert">
    <strong>${error.title}</strong> (${error.code}): ${error.message}
    ${
      error.errors.length
        ? html`<ul>${error.errors.map((e) => html`<li><code>${e.path}</code>: ${e.message}</li>`)}</ul>`
        : null
    }
  </div>`;
}

async function textOf(node: Html): Promise<string> {
  return node === null ? '' : await (node as { toString(): string | Promise<string> }).toString();
}

/** A whole page as text: what is sent where no console route renders it (the sign-in pages). */
export async function documentText(node: Html): Promise<string> {
  return `<!doctype html>${await textOf(node)}`;
}

/** Full pages start with a doctype; fragments (htmx swaps) do not. */
export async function render(c: Context, node: Html, status = 200, fragment = false): Promise<Response> {
  return c.html(fragment ? await textOf(node) : await documentText(node), status as 200);
}

/** A problem the page can show instead of failing; anything else is rethrown for the error page. */
export function asProblem(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  throw error;
}
