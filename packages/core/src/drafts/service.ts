/** The draft use cases behind `GET/PUT/DELETE /v1/projects/{project}/onboarding-draft`. */
import type { Identity } from '../auth/identity.ts';
import { addSeconds, type Clock } from '../clock.ts';
import { ErrorCode, type FieldError, ProblemError, validationFailed } from '../errors.ts';
import { bodyProblems, parseOrThrow } from '../validation.ts';
import { draftRetentionDays, maxDraftBytes, maxDraftDepth } from './model.ts';
import type { DraftStore } from './ports.ts';
import { refusedContent } from './refusal.ts';
import { type Draft, DraftBody } from './schema.ts';

export interface DraftDeps {
  drafts: DraftStore;
  clock: Clock;
}

/**
 * The body as a draft may hold it: shape (422 `validation_failed`), then what `checkContent` asks.
 * Shared with the CLI, which refuses such a file before sending it.
 */
export function parseBody(input: unknown): DraftBody {
  return checkContent(parseOrThrow(DraftBody, input));
}

/** Bounds (422 `validation_failed`) and nothing a draft never stores (422 `draft_content_refused`, every refused path named). */
function checkContent(body: DraftBody): DraftBody {
  const content = { stage: body.stage, configuration: body.configuration, selections: body.selections };
  const bytes = Buffer.byteLength(JSON.stringify(content));
  const bounds: FieldError[] = [];
  if (bytes > maxDraftBytes) {
    bounds.push({
      path: '/configuration',
      message: `stage, configuration and selections take ${bytes} bytes; a draft holds at most ${maxDraftBytes}`,
    });
  }
  for (const part of ['configuration', 'selections'] as const) {
    if (bodyProblems(body[part], maxDraftDepth).tooDeep) {
      bounds.push({ path: `/${part}`, message: `nested deeper than ${maxDraftDepth} levels` });
    }
  }
  if (bounds.length) throw validationFailed(bounds);
  const refused = [
    ...refusedContent(body.configuration, '/configuration'),
    ...refusedContent(body.selections, '/selections'),
  ];
  if (refused.length) {
    throw new ProblemError(
      ErrorCode.DraftContentRefused,
      `A draft never stores environment values, ConfigMap values, credentials or messaging configuration; remove ${refused.map((e) => e.path).join(', ')}. Nothing was saved.`,
      { errors: refused },
    );
  }
  return body;
}

function noDraft(project: string): ProblemError {
  return new ProblemError(ErrorCode.NotFound, `you have no onboarding draft of project "${project}"`);
}

function stale(given: number, current: Draft | null): ProblemError {
  const now = current
    ? `the draft is at revision ${current.revision}`
    : 'there is no draft; save with revision 0 to create one';
  return new ProblemError(ErrorCode.StaleRevision, `revision ${given} is not current: ${now}.`, {
    errors: [
      { path: '/revision', message: current ? `current revision is ${current.revision}` : 'no draft' },
    ],
  });
}

export async function get(deps: DraftDeps, identity: Identity, project: string): Promise<Draft> {
  const draft = await deps.drafts.get(project, identity.author, deps.clock.now());
  if (!draft) throw noDraft(project);
  return draft;
}

/** PUT: saves the draft when `revision` is the current one (0 creates); answers it at the next revision. */
export async function save(
  deps: DraftDeps,
  identity: Identity,
  project: string,
  input: DraftBody,
): Promise<Draft> {
  const body = checkContent(input);
  if (body.project !== project) {
    throw validationFailed([
      { path: '/project', message: `the body names project "${body.project}" but the path "${project}"` },
    ]);
  }
  const now = deps.clock.now();
  const current = await deps.drafts.get(project, identity.author, now);
  if (body.revision !== (current?.revision ?? 0)) throw stale(body.revision, current);
  const at = now.toISOString();
  const draft: Draft = {
    project,
    author: identity.author,
    revision: body.revision + 1,
    stage: body.stage,
    configuration: body.configuration,
    selections: body.selections,
    created_at: current?.created_at ?? at,
    updated_at: at,
    expires_at: addSeconds(now, draftRetentionDays * 86_400).toISOString(),
  };
  if (!(await deps.drafts.put(draft, body.revision, now))) {
    throw stale(body.revision, await deps.drafts.get(project, identity.author, now));
  }
  return draft;
}

/** DELETE: discards the draft when `revision` is current; 404 when there is none. */
export async function discard(
  deps: DraftDeps,
  identity: Identity,
  project: string,
  revision: number,
): Promise<void> {
  const now = deps.clock.now();
  if (await deps.drafts.delete(project, identity.author, revision, now)) return;
  const current = await deps.drafts.get(project, identity.author, now);
  if (!current) throw noDraft(project);
  throw new ProblemError(
    ErrorCode.StaleRevision,
    `revision ${revision} is not current: the draft is at revision ${current.revision}.`,
    { errors: [{ path: 'revision', message: `current revision is ${current.revision}` }] },
  );
}
