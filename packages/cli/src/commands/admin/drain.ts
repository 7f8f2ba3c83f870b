import { Catalog, type Installation } from '@svc/core';
import { type Api, api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../errors.ts';
import { checkDuration, checkWith } from '../../validate.ts';

type Drained = Installation.DrainReport['items'][number];

const pageSize = 100;
const maxPollIntervalMs = 5000;
const maxWaitSeconds = 3600;

/** One pass over every page: the drain (or its dry run) of every live composition there now. */
async function pass(client: Api, body: { cluster: string | null; dry_run: boolean }): Promise<Drained[]> {
  const items: Drained[] = [];
  let after: string | undefined;
  do {
    const page = await client.call('drainCompositions', {
      body,
      query: after === undefined ? { limit: pageSize } : { limit: pageSize, after },
    });
    items.push(...page.items);
    after = page.next_cursor ?? undefined;
  } while (after !== undefined);
  return items;
}

const where = (cluster: string | null) => (cluster === null ? 'the stage' : `cluster ${cluster}`);

interface Report {
  dry_run: false;
  cluster: string | null;
  compositions: Drained[];
  remaining: string[];
}

/** `--no-wait`: what the first pass started is the answer, unless some destroys did not start. */
function started(report: Report): Report {
  const failed = report.compositions.filter((c) => c.action === 'not_started');
  if (failed.length === 0) return report;
  const why = failed.map((c) => `${c.id}: ${c.detail}`).join('; ');
  throw new CliError(
    localProblem(
      LocalCode.DrainIncomplete,
      `${failed.length} of ${report.compositions.length} destroys on ${where(report.cluster)} did not start (${why}); run the drain again`,
    ),
    ExitCode.Failure,
    { output: report },
  );
}

/** Passes again until one finds nothing left on the cluster, or the timeout passes (exit 3). */
async function destroyed(
  client: Api,
  report: Report,
  timeout: { seconds: number; text: string },
  hint: (line: string) => void,
): Promise<Report> {
  const deadline = Date.now() + timeout.seconds * 1000;
  let left = report.compositions;
  let interval = 1000;
  while (left.length > 0) {
    const wait = Math.min(interval, deadline - Date.now());
    if (wait <= 0) {
      throw new CliError(
        localProblem(
          LocalCode.WaitTimeout,
          `${left.length} compositions on ${where(report.cluster)} are not destroyed after ${timeout.text}; run the drain again, or see svc composition events <id>`,
        ),
        ExitCode.NotReady,
        { output: { ...report, remaining: left.map((c) => c.id) } },
      );
    }
    hint(`waiting for ${left.length} destroys on ${where(report.cluster)}`);
    await new Promise((resolve) => setTimeout(resolve, wait));
    interval = Math.min(interval * 2, maxPollIntervalMs);
    // Another pass, not a read: it also starts what failed to start or was created meanwhile.
    left = await pass(client, { cluster: report.cluster, dry_run: false });
  }
  return { ...report, remaining: [] };
}

export default defineCommand({
  name: 'admin drain',
  summary:
    'Destroy every live composition of the stage, or of one cluster, and wait until they are destroyed (Admin only); run it before a cluster leaves the stage or the stage is removed.',
  notes: [
    'stdout is { dry_run, cluster, compositions: [{ id, project, name, cluster, phase, action, detail }], remaining: [id] };',
    'action is destroy (started; in a dry run, would start), destroying (already under way) or not_started (see detail);',
    'remaining lists the compositions not yet destroyed when the command returned (none once it waited them out).',
    'Each pass pages through the live compositions and starts the destroys not yet under way, so running it again is safe;',
    'while it waits it passes again, catching what failed to start or was created meanwhile. A pull-request preview is',
    'stopped, as a DELETE stops it (svc pr-preview restart brings it back). Exit 3 when the timeout passes first;',
    'exit 1 (drain_incomplete) when --no-wait could not start them all. docs/deploy.md, "Removing a cluster or a stage".',
  ],
  flags: {
    cluster: {
      type: 'string',
      value: 'name',
      description: "Only this cluster's compositions (default: every composition of the stage).",
    },
    'dry-run': { type: 'boolean', description: 'List what would be destroyed; change nothing.' },
    'no-wait': { type: 'boolean', description: 'Start the destroys and return without waiting for them.' },
    timeout: {
      type: 'string',
      value: 'duration',
      default: '15m',
      description: `How long to wait for every destroy, at most ${maxWaitSeconds / 60}m.`,
    },
  },
  async run({ flags, context }) {
    const seconds = checkDuration(flags.timeout, '--timeout', { min: 1, max: maxWaitSeconds });
    const cluster =
      flags.cluster === undefined
        ? null
        : checkWith(Catalog.Baseline.entries.cluster, flags.cluster, '--cluster');
    const client = api(context);
    const compositions = await pass(client, { cluster, dry_run: flags['dry-run'] });
    if (flags['dry-run']) return { dry_run: true, cluster, compositions };
    const report: Report = {
      dry_run: false,
      cluster,
      compositions,
      remaining: compositions.map((c) => c.id),
    };
    if (flags['no-wait']) return started(report);
    return destroyed(client, report, { seconds, text: flags.timeout }, (line) => context.hint(line));
  },
});
