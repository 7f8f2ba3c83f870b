import type { Compositions } from '@svc/core';
import type * as v from 'valibot';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import {
  checkCompositionName,
  checkIdempotencyKey,
  checkName,
  checkSelection,
  checkTtl,
  overridesFrom,
  previewRevisionsFrom,
} from '../../validate.ts';
import { selectionFlags, selectionNotes } from '../_shared.ts';
import { imageComponent } from './_component.ts';

export default defineCommand({
  name: 'composition create',
  summary: 'Create a composition (asynchronous: it answers at once; svc composition wait follows it).',
  notes: [...selectionNotes, 'stdout is the accepted composition (phase created); its id is .id.'],
  flags: {
    name: { type: 'string', required: true, description: 'Composition name: a lowercase DNS label.' },
    project: { type: 'string', default: 'demo', description: 'Catalog project.' },
    baseline: {
      type: 'string',
      defaultNote: "the project's default_baseline, as the server decides (staging in the local demo)",
      description: 'Registered baseline to build on.',
    },
    ...selectionFlags,
    'message-isolation': {
      type: 'boolean',
      description: 'Isolate cloud messaging (publish/subscribe) for overridden consumers; immutable.',
    },
    ttl: {
      type: 'string',
      value: 'duration',
      defaultNote: 'server default (4h)',
      description: 'Lifetime such as 30m, 2h or 1h30m; at most 24h.',
    },
    'idempotency-key': {
      type: 'string',
      value: 'key',
      description: 'Makes a retry safe: the same key and flags replay the first answer for 24h.',
    },
  },
  async run({ flags, context }) {
    const project = checkName(flags.project, '--project');
    const request: v.InferInput<typeof Compositions.CreateCompositionBody> = {
      project,
      ...(flags.baseline === undefined ? {} : { baseline: checkName(flags.baseline, '--baseline') }),
      name: checkCompositionName(flags.name),
      overrides: {},
      message_isolation: flags['message-isolation'],
      expected_preview_revisions: previewRevisionsFrom(flags['expected-preview-revision']),
    };
    const selection = checkSelection(flags);
    if (flags.ttl !== undefined) {
      checkTtl(flags.ttl);
      request.ttl = flags.ttl;
    }
    const key =
      flags['idempotency-key'] === undefined ? undefined : checkIdempotencyKey(flags['idempotency-key']);
    const client = api(context);
    const component = await imageComponent(flags, selection, async () => project, client, context);
    request.overrides = overridesFrom(selection, component);
    return client.call('createComposition', {
      body: request,
      headers: { 'Idempotency-Key': key },
    });
  },
});
