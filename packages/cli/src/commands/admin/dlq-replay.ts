import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { invalidArgument } from '../../errors.ts';
import { checkInteger } from '../../validate.ts';

const maxReplay = 100;

export default defineCommand({
  name: 'admin dlq replay',
  summary:
    'Send dead jobs back to the job queue, the reason recorded on each composition (Admin only); a failed operation runs again from the step whose message died.',
  notes: [
    'stdout is { dry_run, reason, jobs: [{ message_id, kind, composition_id, operation_id, step, action, detail }] };',
    'action is resume, requeue, discard (nothing left to replay; removed) or keep (left in the queue).',
    'Fix what made the jobs fail first (docs/runbooks.md#dead-letter-queue-not-empty).',
  ],
  flags: {
    'dry-run': { type: 'boolean', description: 'Say what would happen; change nothing.' },
    limit: { type: 'string', value: 'int', description: `Dead jobs to take, 1–${maxReplay} (default 10).` },
    reason: {
      type: 'string',
      value: 'text',
      description: 'Recorded on each composition (default "replayed from the dead-letter queue").',
    },
  },
  run: ({ flags, context }) => {
    const reason = flags.reason?.trim();
    if (flags.reason !== undefined && (!reason || reason.length > 300)) {
      throw invalidArgument('--reason', 'must be 1–300 characters');
    }
    return api(context).call('replayDeadLetters', {
      body: {
        dry_run: flags['dry-run'] === true,
        ...(flags.limit === undefined
          ? {}
          : { limit: checkInteger(flags.limit, '--limit', { min: 1, max: maxReplay }) }),
        ...(reason ? { reason } : {}),
      },
    });
  },
});
