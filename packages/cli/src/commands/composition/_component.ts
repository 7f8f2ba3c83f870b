/**
 * Which component `--image` overrides when `--component` is not given: the project's component
 * named like the image; in the local demo's project, service-b (the spec's default, meant for the
 * demo); otherwise none, and the command asks for `--component` instead of guessing. The choice is
 * said on stderr, so an override never lands on a component nobody named.
 */
import { componentNamedLike } from '@svc/core';
import type { Api } from '../../api.ts';
import type { Context } from '../../context.ts';
import { invalidArgument } from '../../errors.ts';
import { demoComponent, type Selection, type SelectionFlags } from '../../validate.ts';

async function componentsOf(client: Api, project: string): Promise<string[]> {
  const names: string[] = [];
  let after: string | undefined;
  do {
    const page = await client.call('listComponents', { path: { project }, query: { limit: 200, after } });
    names.push(...page.items.map((item) => item.name));
    after = page.next_cursor ?? undefined;
  } while (after !== undefined);
  return names;
}

/** `--component` as given, the component chosen for `--image`, or null without `--image`. */
export async function imageComponent(
  flags: SelectionFlags,
  selection: Selection,
  project: () => Promise<string>,
  client: Api,
  context: Context,
): Promise<string | null> {
  if (selection.image === null || flags.component !== undefined) return flags.component ?? null;
  const name = await project();
  const components = await componentsOf(client, name);
  const named = componentNamedLike(selection.image.parts, components);
  if (named) {
    context.hint(
      `--image overrides ${named}, the component of ${name} named like the image (--component chooses)`,
    );
    return named;
  }
  if (name === demoComponent.project && components.includes(demoComponent.component)) {
    context.hint(
      `--image overrides ${demoComponent.component}, the local demo's default: no component of ${name} is named like the image (--component chooses)`,
    );
    return demoComponent.component;
  }
  throw invalidArgument(
    '--component',
    `required: no component of project ${name} is named like the image; name the one --image overrides (${components.join(', ') || 'the project has none'})`,
  );
}
