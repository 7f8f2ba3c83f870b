/** `--grant role:project[:owner/name]`, the grants of a machine token or a person, checked as the server checks them. */
import { Auth } from '@svc/core';
import * as v from 'valibot';
import type { FlagSpec } from '../../command.ts';
import { invalidArgument } from '../../errors.ts';

export const grantFlag = {
  grant: {
    type: 'string',
    multiple: true,
    value: 'role:project[:owner/name]',
    description:
      'A grant: viewer, developer, maintainer or admin on a project (or * for all), or publisher:<project>:<owner/name> for CI.',
  },
} as const satisfies Record<string, FlagSpec>;

export function checkGrants(texts: readonly string[]): Auth.Grant[] {
  return texts.map((text) => {
    const [role, project, repository, ...rest] = text.split(':');
    const result = v.safeParse(Auth.Grant, {
      role,
      project,
      ...(repository === undefined ? {} : { repository }),
    });
    if (rest.length > 0 || !result.success) {
      const why = rest.length > 0 ? 'too many parts' : (result.issues?.[0]?.message ?? 'invalid grant');
      throw invalidArgument('--grant', `"${text}": ${why} (role:project, or publisher:project:owner/name)`);
    }
    return result.output;
  });
}
