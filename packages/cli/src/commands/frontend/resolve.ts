import { Frontends } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../errors.ts';
import { checkDuration } from '../../validate.ts';
import { defaultWaitSeconds, maxWaitSeconds } from '../composition/wait.ts';
import { bindingFlags, bindingOf } from './_flags.ts';

export default defineCommand({
  name: 'frontend resolve',
  summary:
    'The composition a frontend revision is bound to, waiting until it is ready (exit 0), failed or ended (exit 1), or the timeout passes (exit 3).',
  notes: [
    'stdout is { binding, composition: { id, phase, url, ready, … }, outcome, message }, whatever the outcome.',
    `Each request waits on the server for at most ${Frontends.maxResolveWaitSeconds}s; longer timeouts ask again.`,
  ],
  flags: {
    ...bindingFlags,
    timeout: {
      type: 'string',
      value: 'duration',
      default: `${defaultWaitSeconds}s`,
      description: `How long to wait for readiness, at most ${maxWaitSeconds}s.`,
    },
  },
  async run({ flags, context }) {
    const binding = bindingOf(flags);
    const seconds = checkDuration(flags.timeout, '--timeout', { min: 1, max: maxWaitSeconds });
    const client = api(context);
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const wait = Math.max(
        0,
        Math.min(Frontends.maxResolveWaitSeconds, Math.floor((deadline - Date.now()) / 1000)),
      );
      const answer = await client.call(
        'resolveFrontend',
        { path: binding, query: { wait_seconds: wait } },
        { timeoutSeconds: wait + 10 },
      );
      const what = `frontend ${binding.frontend} revision ${binding.revision.slice(0, 12)}`;
      if (answer.outcome === 'ready') return answer;
      if (answer.outcome === 'failed' || answer.outcome === 'ended') {
        throw new CliError(
          localProblem(
            answer.outcome === 'failed' ? LocalCode.CompositionFailed : LocalCode.CompositionEnded,
            `${what}: ${answer.message}`,
          ),
          ExitCode.Failure,
          { output: answer },
        );
      }
      if (Date.now() >= deadline) {
        throw new CliError(
          localProblem(
            LocalCode.WaitTimeout,
            `${what}: ${answer.message} after ${flags.timeout}; resolve again`,
          ),
          ExitCode.NotReady,
          { output: answer },
        );
      }
      // Under a second left: the server cannot wait, so poll gently until the deadline.
      if (wait === 0) await new Promise((r) => setTimeout(r, Math.min(250, deadline - Date.now())));
    }
  },
});
