/**
 * Update and destroy: destructive, so each takes two calls. The first reads the composition and
 * answers what the call would do with a confirmation bound to it (confirmation.ts); the second,
 * with the same arguments and that confirmation, does it — if the composition is still at the
 * generation the agent was shown.
 */
import { Compositions } from '@svc/core';
import * as v from 'valibot';
import { type Action, confirmationLifetimeSeconds } from '../confirmation.ts';
import { McpCode, mcpError } from '../problems.ts';
import { Access, defineTool, type ToolContext, type ToolOutcome } from '../tool.ts';
import { compositionId, confirmationInput } from './inputs.ts';

type CompositionView = Compositions.CompositionView;

/** The composition as the agent was shown it, for the effect of a change. */
function shown(current: CompositionView) {
  const { id, name, project, baseline, phase, generation, owner, overrides, expires_at } = current;
  return {
    id,
    name,
    project,
    baseline,
    phase,
    generation,
    owner,
    overrides,
    expires_at,
    url: current.endpoints.public.url,
  };
}

/**
 * The two steps around `act`: without a confirmation, the effect and a fresh confirmation; with
 * one, `act` — only if it confirms this very action, in time, at the generation it was shown at.
 */
async function confirmed(
  context: ToolContext,
  request: { tool: string; id: string; arguments: unknown; confirmation: string | undefined },
  describe: (current: CompositionView) => { summary: string; effect: Record<string, unknown> },
  act: () => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const { confirmations, client, session } = context;
  const current = await client.call('getComposition', { path: { id: request.id } });
  const action: Omit<Action, 'generation'> = {
    tool: request.tool,
    session,
    target: request.id,
    arguments: request.arguments,
  };
  if (request.confirmation === undefined) {
    const { summary, effect } = describe(current);
    const { token, expires_at } = confirmations.issue({ ...action, generation: current.generation });
    return {
      summary: `${summary} Nothing was done yet: to go ahead, call ${request.tool} again with the same arguments and confirmation within ${confirmationLifetimeSeconds} s.`,
      result: {
        confirmation_required: true,
        confirmation: token,
        expires_at,
        effect,
        composition: shown(current),
      },
    };
  }
  const verdict = confirmations.verify(action, request.confirmation);
  if (!verdict.valid && verdict.reason === 'expired') {
    throw mcpError(
      McpCode.ConfirmationExpired,
      `the confirmation expired (they last ${confirmationLifetimeSeconds} s); call ${request.tool} without one to see the effect again`,
      [{ path: '/confirmation', message: 'expired' }],
    );
  }
  if (!verdict.valid) {
    throw mcpError(
      McpCode.ConfirmationInvalid,
      `this confirmation was not issued for this ${request.tool} call (tool, composition, arguments and session must be the same); call ${request.tool} without one to get one`,
      [{ path: '/confirmation', message: 'does not confirm this call' }],
    );
  }
  if (verdict.generation !== current.generation) {
    throw mcpError(
      McpCode.ConfirmationStale,
      `${request.id} changed since the confirmation (generation ${verdict.generation} then, ${current.generation} now); call ${request.tool} without one to see the effect now`,
      [{ path: '/confirmation', message: 'stale' }],
    );
  }
  return act();
}

export const destroy = defineTool({
  name: 'composition_destroy',
  title: 'Destroy a composition',
  description:
    'Delete a preview: its workloads, routes and URL go away, whatever phase it is in; cannot be undone. Two calls: the first answers what would be destroyed and a confirmation, the second (same id, plus confirmation) does it.',
  access: Access.Destructive,
  idempotent: true,
  input: v.strictObject({ id: compositionId, confirmation: confirmationInput }),
  run({ id, confirmation }, context) {
    return confirmed(
      context,
      { tool: 'composition_destroy', id, arguments: {}, confirmation },
      (current) => ({
        summary: `Destroying ${id} (${current.name}, ${current.phase}) would remove its workloads, routes and ${current.endpoints.public.url}, for good.`,
        effect: { action: 'destroy', removes: ['workloads', 'routes', 'url'], reversible: false },
      }),
      async () => {
        const answer = await context.client.call('destroyComposition', { path: { id } });
        return { summary: `${id} is ${answer.phase}; cleanup follows.`, result: answer };
      },
    );
  },
});

/** Components whose override the update adds, changes, removes (back to the baseline) or keeps. */
function overrideChanges(
  before: CompositionView['overrides'],
  after: Compositions.UpdateCompositionBody['overrides'],
): Record<'added' | 'changed' | 'removed' | 'unchanged', string[]> {
  const same = (component: string) =>
    (before[component]?.image ?? null) === (after[component]?.image ?? null) &&
    (before[component]?.build_id ?? null) === (after[component]?.build_id ?? null);
  const components = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return {
    added: components.filter((c) => !(c in before)),
    changed: components.filter((c) => c in before && c in after && !same(c)),
    removed: components.filter((c) => !(c in after)),
    unchanged: components.filter((c) => c in before && c in after && same(c)),
  };
}

export const update = defineTool({
  name: 'composition_update',
  title: 'Update a composition',
  description:
    "Roll out a new complete set of overrides (components left out go back to the baseline) at expected_generation (composition_get's generation). Two calls: the first answers the change and a confirmation, the second (same arguments plus confirmation) starts the rollout; composition_wait follows it.",
  access: Access.Destructive,
  idempotent: true,
  input: v.strictObject({
    id: compositionId,
    ...Compositions.UpdateCompositionBody.entries,
    confirmation: confirmationInput,
  }),
  run({ id, confirmation, ...body }, context) {
    return confirmed(
      context,
      { tool: 'composition_update', id, arguments: body, confirmation },
      (current) => {
        if (current.generation !== body.expected_generation) {
          throw mcpError(
            McpCode.GenerationMismatch,
            `${id} is at generation ${current.generation}, not ${body.expected_generation}; read it again (composition_get) and decide on the overrides from what it is now`,
            [{ path: '/expected_generation', message: `is ${current.generation}` }],
          );
        }
        const changes = overrideChanges(current.overrides, body.overrides);
        return {
          summary: `Updating ${id} (${current.name}) to generation ${current.generation + 1} would add ${changes.added.length}, change ${changes.changed.length} and remove ${changes.removed.length} overrides.`,
          effect: {
            action: 'update',
            generation: { from: current.generation, to: current.generation + 1 },
            overrides: { before: current.overrides, after: body.overrides },
            components: changes,
          },
        };
      },
      async () => {
        const answer = await context.client.call('updateComposition', { path: { id }, body });
        return {
          summary: `${id} is ${answer.phase} to generation ${answer.generation}; composition_wait follows it.`,
          result: answer,
        };
      },
    );
  },
});
