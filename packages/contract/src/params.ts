/** The path segments operations share, each with the rule a value must meet to name anything. */
import { Auth, Frontends, Id, ResourceName } from '@svc/core';
import * as v from 'valibot';
import type { PathParam } from './operation.ts';

const named = (schema: v.GenericSchema<string, string>, what: string, hint?: string): PathParam =>
  hint === undefined ? { schema, what } : { schema, what, hint };

/** Checked by the use case itself (an installation number, an `owner/name` sent as `owner%2Fname`). */
const unchecked = (what: string): PathParam => ({ schema: v.string(), what });

export const compositionParam = named(Id, 'composition');
export const projectParam = named(ResourceName, 'project');
export const componentParam = named(ResourceName, 'component');
export const frontendParam = named(ResourceName, 'frontend');
export const revisionParam = named(
  v.pipe(v.string(), v.regex(Frontends.frontendRevisionPattern)),
  'revision',
  'revisions are full lowercase hex commit SHAs',
);
export const tokenParam = named(Id, 'token');
export const previewParam = named(Id, 'preview');
export const usernameParam = named(v.pipe(v.string(), v.regex(Auth.usernameShape)), 'user');
export const signInParam = named(v.pipe(v.string(), v.regex(/^(ses|sig)-[a-z0-9]{1,40}$/)), 'sign-in');
export const installationParam = unchecked('installation');
export const repositoryParam = unchecked('repository');
