/** The flags every frontend command takes: which binding, as `--project --frontend --revision`. */
import { Frontends } from '@svc/core';
import type { FlagSpec } from '../../command.ts';
import { checkInteger, checkName, checkWith } from '../../validate.ts';

export const bindingFlags = {
  project: { type: 'string', required: true, description: 'Catalog project.' },
  frontend: { type: 'string', required: true, description: 'Frontend name (a DNS label), e.g. web.' },
  revision: {
    type: 'string',
    required: true,
    value: 'sha',
    description: 'The frontend revision: the full commit SHA it was built from.',
  },
} as const satisfies Record<string, FlagSpec>;

export const expectedVersionFlag = {
  'expected-version': {
    type: 'string',
    required: true,
    value: 'version',
    description: "The binding's current version (svc frontend resolve … | jq .binding.version).",
  },
} as const satisfies Record<string, FlagSpec>;

export function bindingOf(flags: { project: string; frontend: string; revision: string }) {
  return {
    project: checkName(flags.project, '--project'),
    frontend: checkName(flags.frontend, '--frontend'),
    revision: checkWith(Frontends.FrontendRevision, flags.revision, '--revision'),
  };
}

export const checkVersion = (text: string) =>
  checkInteger(text, '--expected-version', { min: 1, max: 2 ** 31 - 1 });
