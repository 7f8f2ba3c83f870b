/**
 * Webhook deliveries: verified, stored (a conditional put on the delivery id) before the 202, then
 * processed from the queue. A redelivery keeps its id: a stored delivery that never finished is
 * dispatched again, a finished one is a 202 that does nothing. Processing reads the pull request
 * as it is now (`convergePullRequest`), never the payload's copy of it, so order does not matter.
 */
import * as v from 'valibot';
import { addSeconds } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { convergePullRequest } from './drive.ts';
import { accountOf, type Delivery, type DeliveryOutcome, DeliveryState, finishedDelivery } from './model.ts';
import { allPolicies, policiesInEffect, policyInEffect } from './policies.ts';
import type { ForgeDeps } from './ports.ts';
import { ForgeContendedError, ForgeRateLimitedError } from './ports.ts';
import { requireForge } from './preview-io.ts';
import { RepositoryName } from './schema.ts';

/** Checks `X-Hub-Signature-256` against the raw body with the current (or previous) secret. */
export type SignatureCheck = (body: string, signature: string) => Promise<boolean>;

export interface WebhookRequest {
  header(name: string): string | undefined;
  body: string;
}

const pullRequestActions = new Set([
  'opened',
  'reopened',
  'synchronize',
  'labeled',
  'unlabeled',
  'closed',
  'edited',
]);

const PullRequestPayload = v.object({
  action: v.string(),
  repository: v.object({ full_name: RepositoryName }),
  pull_request: v.object({ number: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
  changes: v.optional(v.object({ base: v.optional(v.unknown()) })),
});
const Repositories = v.optional(v.array(v.object({ full_name: RepositoryName })), []);
const InstallationPayload = v.object({
  action: v.string(),
  // An enterprise's installation has an account without a login: its repositories still count.
  installation: v.optional(
    v.object({
      id: v.pipe(v.number(), v.integer(), v.minValue(1)),
      account: v.nullish(
        v.object({ login: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{1,100}$/))) }),
      ),
    }),
  ),
  repositories: Repositories,
  repositories_added: Repositories,
  repositories_removed: Repositories,
});
/** Every app webhook names its installation; kept so an operator can tell deliveries apart. */
const FromInstallation = v.object({ installation: v.object({ id: v.number() }) });

type Summary = Pick<
  Delivery,
  'action' | 'repository' | 'number' | 'repositories' | 'installation' | 'account'
> & { relevant: boolean };

/** Installation actions after which the installation is read again: its previews stop or may start. */
const suspensionActions = new Set(['suspend', 'unsuspend']);

function summarizePullRequest(payload: unknown, none: Summary): Summary {
  const parsed = v.safeParse(PullRequestPayload, payload);
  if (!parsed.success) return none;
  const { output } = parsed;
  // An edit matters only when the base changed; a title or body edit changes no preview.
  const relevant =
    pullRequestActions.has(output.action) &&
    (output.action !== 'edited' || output.changes?.base !== undefined);
  return { ...none, repository: output.repository.full_name, number: output.pull_request.number, relevant };
}

function summarizeInstallation(payload: unknown, none: Summary): Summary {
  const parsed = v.safeParse(InstallationPayload, payload);
  if (!parsed.success) return none;
  const { installation, repositories, repositories_added, repositories_removed } = parsed.output;
  const names = [...repositories, ...repositories_added, ...repositories_removed].map((r) => r.full_name);
  return {
    ...none,
    repositories: [...new Set(names)],
    installation: installation?.id ?? null,
    account: installation?.account?.login ?? null,
    relevant: true,
  };
}

/** What processing needs from a payload, and whether previews act on it at all. */
export function summarize(event: string, payload: unknown): Summary {
  const action =
    typeof (payload as { action?: unknown })?.action === 'string'
      ? (payload as { action: string }).action
      : null;
  const from = v.safeParse(FromInstallation, payload);
  const none: Summary = {
    action,
    repository: null,
    number: null,
    repositories: [],
    installation: from.success ? from.output.installation.id : null,
    account: null,
    relevant: false,
  };
  if (event === 'pull_request') return summarizePullRequest(payload, none);
  if (event === 'installation' || event === 'installation_repositories')
    return summarizeInstallation(payload, none);
  return none;
}

const deliveryId = /^[A-Za-z0-9-]{1,100}$/;
/** GitHub's event names: letters, digits (`projects_v2_item`) and underscores. */
const eventName = /^[A-Za-z0-9_]{1,64}$/;

/** The two content types a GitHub App's webhook may be set to send. */
const formContentType = 'application/x-www-form-urlencoded';

/**
 * The payload's JSON text: the body itself (`application/json`), or its `payload` field when the
 * app sends the form content type. The signature was checked over the raw body either way.
 */
function payloadText(contentType: string | undefined, body: string): string {
  if (contentType?.split(';')[0]?.trim().toLowerCase() !== formContentType) return body;
  const payload = new URLSearchParams(body).get('payload');
  if (payload === null) {
    throw new ProblemError(
      ErrorCode.ValidationFailed,
      'A form-encoded delivery carries its JSON in `payload`.',
      {
        errors: [{ path: 'payload', message: 'missing from the form body' }],
      },
    );
  }
  return payload;
}

function parsePayload(contentType: string | undefined, body: string): unknown {
  const text = payloadText(contentType, body);
  try {
    return JSON.parse(text);
  } catch {
    throw new ProblemError(ErrorCode.MalformedJson, 'The delivery payload is not JSON.');
  }
}

/**
 * POST /webhooks/forge. 401 `signature_invalid` (nothing stored) for a missing or wrong
 * signature; otherwise the delivery is stored, then dispatched, and the answer is 202 even when
 * the queue does not answer in time (the dispatch sweep sends what was stored).
 */
export async function ingest(
  deps: Pick<ForgeDeps, 'forgeStore' | 'jobs' | 'clock' | 'forgeSettings' | 'log'>,
  verify: SignatureCheck,
  request: WebhookRequest,
): Promise<{ delivery: string; state: string; duplicate: boolean }> {
  const signature = request.header('x-hub-signature-256');
  if (!signature || !(await verify(request.body, signature))) {
    throw new ProblemError(
      ErrorCode.SignatureInvalid,
      'X-Hub-Signature-256 is missing or does not match the body.',
    );
  }
  const id = request.header('x-github-delivery') ?? '';
  const event = request.header('x-github-event') ?? '';
  if (!deliveryId.test(id) || !eventName.test(event)) {
    throw new ProblemError(ErrorCode.ValidationFailed, 'X-GitHub-Delivery and X-GitHub-Event are required.', {
      errors: [
        {
          path: deliveryId.test(id) ? 'X-GitHub-Event' : 'X-GitHub-Delivery',
          message: 'missing or malformed',
        },
      ],
    });
  }
  const payload = parsePayload(request.header('content-type'), request.body);
  const now = deps.clock.now();
  const summary = summarize(event, payload);
  const { relevant, ...fields } = summary;
  const delivery: Delivery = {
    id,
    event,
    ...fields,
    state: relevant ? DeliveryState.Received : DeliveryState.Ignored,
    received_at: now.toISOString(),
    due_at: relevant ? addSeconds(now, deps.forgeSettings.dispatchGraceSeconds).toISOString() : null,
    finished_at: relevant ? null : now.toISOString(),
    attempts: 0,
    error: null,
    outcome: [],
  };
  const [stored] = await Promise.all([
    deps.forgeStore.putDelivery(delivery),
    deps.forgeStore.noteReceived(delivery.received_at),
  ]);
  if (!stored) {
    const existing = await deps.forgeStore.getDelivery(id);
    if (!existing || finishedDelivery(existing.state))
      return { delivery: id, state: existing?.state ?? 'processed', duplicate: true };
    await dispatch(deps, id);
    return { delivery: id, state: existing.state, duplicate: true };
  }
  if (relevant) await dispatch(deps, id);
  return { delivery: id, state: delivery.state, duplicate: false };
}

/** Sends the processing job, waiting for the queue only so long: a stored delivery is never lost. */
async function dispatch(deps: Pick<ForgeDeps, 'jobs' | 'forgeSettings' | 'log'>, id: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deps.forgeSettings.enqueueTimeoutMs);
  });
  const send = deps.jobs.send({ kind: 'forge-delivery', delivery_id: id }).catch((error: unknown) => {
    deps.log({
      level: 'warn',
      msg: 'delivery not enqueued; the dispatch sweep will send it',
      delivery: id,
      error: String(error),
    });
  });
  await Promise.race([send, timeout]);
  clearTimeout(timer);
}

/** What processing asks of the queue: nothing, or to come back after a rate limit. */
export type Processed = { deferSeconds: number } | null;

/**
 * The queue's `forge-delivery` job. Converges every pull request the delivery concerns, in every
 * project whose policy names its repository. A rate limit defers it (re-enqueued with a delay,
 * visible in /v1/forge/status); other errors are retried by the queue until the last attempt,
 * which records it as failed (the reconciliation sweep still converges what it concerned).
 */
export async function processDelivery(deps: ForgeDeps, id: string, receiveCount: number): Promise<Processed> {
  const delivery = await deps.forgeStore.getDelivery(id);
  if (!delivery || finishedDelivery(delivery.state)) return null;
  const now = () => deps.clock.now().toISOString();
  try {
    const outcome = await converge(deps, delivery);
    await deps.forgeStore.updateDelivery({
      ...delivery,
      outcome,
      state: DeliveryState.Processed,
      finished_at: now(),
      due_at: null,
      attempts: delivery.attempts + 1,
      error: null,
    });
    return null;
  } catch (error) {
    // Lost races are not a failed attempt: the worker puts the job off a moment (`deferral`), and
    // the delivery stays as it was rather than carrying an error and using up its attempts.
    if (error instanceof ForgeContendedError) throw error;
    if (error instanceof ForgeRateLimitedError) {
      const until = addSeconds(deps.clock.now(), error.retryAfterSeconds).toISOString();
      await deps.forgeStore.updateDelivery({
        ...delivery,
        state: DeliveryState.Deferred,
        due_at: until,
        error: error.message,
      });
      return { deferSeconds: error.retryAfterSeconds };
    }
    const last = receiveCount >= deps.forgeSettings.maxAttempts;
    await deps.forgeStore.updateDelivery({
      ...delivery,
      state: last ? DeliveryState.Failed : delivery.state,
      finished_at: last ? now() : null,
      due_at: last ? null : delivery.due_at,
      attempts: delivery.attempts + 1,
      error: error instanceof Error ? error.message : String(error),
    });
    if (last) {
      await deps.forgeStore.noteFailure(now());
      return null;
    }
    throw error;
  }
}

/** What processing did; for a pull request, the convergence in each project whose policy names it. */
async function converge(deps: ForgeDeps, delivery: Delivery): Promise<DeliveryOutcome[]> {
  if (
    delivery.event === 'installation' &&
    suspensionActions.has(delivery.action ?? '') &&
    delivery.installation !== null
  ) {
    const account = await refreshSuspension(deps, delivery.installation, delivery.account);
    if (account !== null) await convergeAccount(deps, account);
    return [];
  }
  if (delivery.repository !== null && delivery.number !== null) {
    const { repository, number } = delivery;
    const outcome: DeliveryOutcome[] = [];
    for (const policy of await policiesInEffect(deps, repository)) {
      const { decision, preview } = await convergePullRequest(deps, {
        project: policy.project,
        repository,
        number,
      });
      outcome.push({
        project: policy.project,
        preview_id: preview?.id ?? null,
        state: decision.state,
        unwanted: decision.unwanted,
      });
    }
    return outcome;
  }
  deps.forge?.forgetRepositories(delivery.repositories);
  for (const repository of delivery.repositories) {
    for (const policy of await policiesInEffect(deps, repository)) {
      await convergeRepository(deps, { project: policy.project, repository });
    }
  }
  return [];
}

/**
 * Every pull request of a repository in one project: those open with the label, and every preview
 * still holding something. Answers how many previews were created or stopped (drift).
 */
export async function convergeRepository(
  deps: ForgeDeps,
  target: { project: string; repository: string },
): Promise<{ found: number; fixed: number }> {
  const [policy, suspension] = await Promise.all([
    policyInEffect(deps, target.project, target.repository),
    deps.forgeStore.getSuspension(accountOf(target.repository)),
  ]);
  const labelled =
    policy?.enabled && deps.forge && !suspension
      ? await deps.forge.listOpenPullRequests(target.repository, policy.trigger_label)
      : [];
  const active = (await deps.forgeStore.activePreviewsOf(target.repository)).filter(
    (p) => p.project === target.project,
  );
  const numbers = new Set([...labelled.map((pr) => pr.number), ...active.map((p) => p.number)]);
  let found = 0;
  let fixed = 0;
  for (const number of [...numbers].sort((a, b) => a - b)) {
    const { decision } = await convergePullRequest(deps, { ...target, number });
    if (decision.action.kind === 'create' || decision.action.kind === 'destroy') {
      found += 1;
      fixed += 1;
    }
  }
  return { found, fixed };
}

/**
 * Reads the installation as the forge says it is now (the payload is not trusted for state, and a
 * suspend and an unsuspend may arrive out of order) and records whether it is suspended. Answers
 * the installation's account; null when the forge knows no such installation (nothing to stop).
 */
async function refreshSuspension(
  deps: ForgeDeps,
  installation: number,
  account: string | null,
): Promise<string | null> {
  const current = await requireForge(deps).getInstallation(installation);
  if (!current) {
    if (account !== null) await deps.forgeStore.deleteSuspension(account);
    return null;
  }
  if (current.suspended_at === null) await deps.forgeStore.deleteSuspension(current.account);
  else {
    await deps.forgeStore.putSuspension({
      account: current.account,
      installation: current.id,
      suspended_at: current.suspended_at,
    });
  }
  return current.account;
}

/** Every policy's repository on `account`: stopped while its installation is suspended, back after. */
async function convergeAccount(deps: ForgeDeps, account: string): Promise<void> {
  const owned = (await allPolicies(deps)).filter(
    (policy) => accountOf(policy.repository).toLowerCase() === account.toLowerCase(),
  );
  deps.forge?.forgetRepositories(owned.map((policy) => policy.repository));
  for (const policy of owned) await convergeRepository(deps, policy);
}
