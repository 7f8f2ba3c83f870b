import { Cluster, type Compositions } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

/**
 * What the preview URL serves when the composition is not ready, for the person reading along: a
 * 200 from the baseline must not pass for "my change did not deploy" (docs/decisions.md).
 */
function banner(view: Compositions.CompositionEndpointsView): string | null {
  const { id, phase } = view;
  const url = view.endpoints.public.url;
  const marked = `marked with the header ${Cluster.pendingHeader}: pending`;
  switch (phase) {
    case 'ready':
      return null;
    case 'created':
    case 'provisioning':
    case 'updating':
      return `phase ${phase}: until it is ready, ${url} answers from the baseline or the previous generation, not yet from this change, ${marked} (svc composition wait ${id})`;
    case 'failed':
      return `phase failed: ${url} answers from the baseline or the last generation that rolled out, ${marked} (svc composition diagnosis ${id} says why)`;
    default:
      return `phase ${phase}: ${url} stops answering once the composition is torn down`;
  }
}

export default defineCommand({
  name: 'composition endpoints',
  summary: 'Preview URLs and routing readiness.',
  notes: [
    'The public preview URL is .endpoints.public.url; .endpoints.public.ready says whether it routes yet.',
    `Until the phase is ready, stderr says what the URL serves meanwhile (answers marked ${Cluster.pendingHeader}).`,
  ],
  positionals: compositionId,
  flags: {},
  async run({ args, context }) {
    const view = await api(context).call('getCompositionEndpoints', { path: { id: checkId(args.id) } });
    const line = banner(view);
    if (line) context.hint(line);
    return view;
  },
});
