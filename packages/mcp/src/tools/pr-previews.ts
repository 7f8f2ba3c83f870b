/** Pull-request previews: read-only here; stop and restart stay with people (svc pr-preview, the console). */
import { type Forge, ResourceName } from '@svc/core';
import * as v from 'valibot';
import { Access, defineTool } from '../tool.ts';
import { pageInput } from './inputs.ts';

const describe = (preview: Forge.PreviewView) =>
  `${preview.id} ${preview.repository}#${preview.pull_request.number}: ${preview.state}${preview.url ? `, ${preview.url}` : ''}`;

export const prPreviews = defineTool({
  name: 'pr_preview_read',
  title: 'Read pull-request previews',
  description:
    'With id (pr-…): one preview owned by a pull request — its lifecycle state (waiting_for_build, deploying, ready, failed, stopping, stopped, restarting, expired), head commit, builds, composition_id (read it with the composition tools) and URL. Without id: the previews, newest first, optionally of one project. Such compositions follow their pull request; they cannot be updated through composition_update.',
  access: Access.Read,
  idempotent: true,
  input: v.strictObject({
    id: v.optional(
      v.pipe(v.string(), v.regex(/^pr-[a-z0-9]{1,37}$/), v.description('Preview id, e.g. pr-3f9a….')),
    ),
    project: v.optional(v.pipe(ResourceName, v.description('Only previews of this project.'))),
    ...pageInput,
  }),
  untrusted: [
    ['last_error', 'message'],
    ['items', '*', 'last_error', 'message'],
  ],
  async run({ id, ...query }, { client }) {
    if (id !== undefined) {
      const preview = await client.call('getForgePreview', { path: { id } });
      return { summary: `${describe(preview)}.`, result: preview };
    }
    const page = await client.call('listForgePreviews', { query });
    const shown = page.items.map(describe).join('; ') || 'none';
    return {
      summary: `Pull-request previews: ${shown}${page.next_cursor ? ' (more: pass after)' : ''}.`,
      result: page,
    };
  },
});
