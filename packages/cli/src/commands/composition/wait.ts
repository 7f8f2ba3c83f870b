import { Compositions, type Insight } from '@svc/core';
import { type Api, api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../errors.ts';
import { checkDuration, checkId } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

export const defaultWaitSeconds = Compositions.waitLimits.defaultSeconds;
export const maxWaitSeconds = Compositions.waitLimits.maxSeconds;
const maxPollIntervalMs = 2000;

/** Phases a composition never leaves for `ready` on its own. */
const ended = new Set(['destroying', 'destroyed', 'expired']);

/** The blockers the diagnosis recorded, so a failed wait says why; none if it cannot be read. */
async function recordedBlockers(client: Api, id: string): Promise<Insight.DiagnosisView['blockers']> {
  try {
    const { blockers } = await client.call('getDiagnosis', { path: { id } });
    // The answer is typed, not validated: an answer of another shape names no blockers.
    return Array.isArray(blockers) ? blockers.filter((b) => typeof b?.message === 'string') : [];
  } catch {
    return [];
  }
}

/** A failed composition: exit 1 with its last status, naming the blockers the diagnosis recorded. */
async function failed(client: Api, last: Compositions.CompositionStatusView): Promise<CliError> {
  const { id } = last;
  const blockers = await recordedBlockers(client, id);
  const why = blockers.length ? `: ${blockers.map((b) => b.message).join('; ')}` : '';
  return new CliError(
    localProblem(
      LocalCode.CompositionFailed,
      `composition ${id} failed (operation ${last.latest_operation.kind} ${last.latest_operation.status})${why}; svc composition diagnosis ${id} tells more`,
      blockers.map((b) => ({ path: b.component ?? '', message: b.message })),
    ),
    ExitCode.Failure,
    { output: last },
  );
}

export default defineCommand({
  name: 'composition wait',
  summary: 'Block until the composition is ready (exit 0), failed (exit 1), or the timeout passes (exit 3).',
  notes: ['stdout is the last status read, whatever the outcome.'],
  positionals: compositionId,
  flags: {
    timeout: {
      type: 'string',
      value: 'duration',
      default: `${defaultWaitSeconds}s`,
      description: `How long to wait, at most ${maxWaitSeconds}s.`,
    },
  },
  async run({ flags, args, context }) {
    const id = checkId(args.id);
    const seconds = checkDuration(flags.timeout, '--timeout', { min: 1, max: maxWaitSeconds });
    const client = api(context);
    const deadline = Date.now() + seconds * 1000;
    // One slow answer must not stretch the wait past its timeout.
    const timeoutSeconds = () => Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    let last: Compositions.CompositionStatusView | undefined;
    let interval = 250;
    for (;;) {
      try {
        last = await client.call(
          'getCompositionStatus',
          { path: { id } },
          { timeoutSeconds: timeoutSeconds() },
        );
      } catch (error) {
        // Once the composition is known, a transient failure (network, 5xx) is worth another poll.
        const transient =
          error instanceof CliError && (error.problem.status === null || error.problem.status >= 500);
        if (last === undefined || !transient) throw error;
      }
      if (last?.phase === 'ready') return last;
      if (last?.phase === 'failed') throw await failed(client, last);
      if (last && ended.has(last.phase)) {
        throw new CliError(
          localProblem(
            LocalCode.CompositionEnded,
            `composition ${id} is ${last.phase}; it will not become ready`,
          ),
          ExitCode.Failure,
          { output: last },
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new CliError(
          localProblem(
            LocalCode.WaitTimeout,
            `composition ${id} is still ${last?.phase ?? 'unknown'} after ${flags.timeout}; wait again, or see svc composition events ${id}`,
          ),
          ExitCode.NotReady,
          { output: last },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
      // Up to 2 s apart: each read is an API request and a DynamoDB read, and real pods take tens
      // of seconds (polling every second was a fifth of a preview's monthly cost).
      interval = Math.min(interval * 2, maxPollIntervalMs);
    }
  },
});
