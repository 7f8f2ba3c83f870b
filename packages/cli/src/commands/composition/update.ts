import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId, checkInteger, overridesFrom, previewRevisionsFrom } from '../../validate.ts';
import { compositionId, selectionFlags, selectionNotes } from '../_shared.ts';

export default defineCommand({
  name: 'composition update',
  summary:
    'Roll out a new complete override set (asynchronous). Not a patch: omitted components return to the baseline.',
  notes: [
    ...selectionNotes,
    'Give the full desired set every time; --inherit-all removes every override.',
    'TTL and message isolation cannot change. A stale --expected-generation exits 4 (409).',
  ],
  positionals: compositionId,
  flags: {
    'expected-generation': {
      type: 'string',
      required: true,
      value: 'int',
      description: "The composition's current generation (svc composition get <id> | jq .generation).",
    },
    ...selectionFlags,
  },
  async run({ flags, args, context }) {
    const id = checkId(args.id);
    const request = {
      expected_generation: checkInteger(flags['expected-generation'], '--expected-generation', {
        min: 1,
        max: Number.MAX_SAFE_INTEGER,
      }),
      overrides: overridesFrom(flags),
      expected_preview_revisions: previewRevisionsFrom(flags['expected-preview-revision']),
    };
    return api(context.http).updateComposition(id, request);
  },
});
