/** Frontend bindings: a static frontend revision bound to a composition, published and checked. */
import { Checks, ErrorCode, Frontends } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { frontendParam, projectParam, revisionParam } from '../params.ts';
import { integerParam } from '../query.ts';
import { write } from '../shapes.ts';

const tag = 'frontends';
const base = '/v1/projects/{project}/frontends/{frontend}/revisions/{revision}';
const params = { project: projectParam, frontend: frontendParam, revision: revisionParam };
/** A write against an existing binding (publishing it, recording a check on it) names its version. */
const bindingWriteErrors = [ErrorCode.VersionMismatch] as const;

export const frontendOperations = {
  bindFrontend: {
    method: 'put',
    path: `${base}/binding`,
    permission: 'frontend:bind',
    summary:
      'Bind a static frontend revision to a composition of the project; rebinding to another composition gives the next version.',
    tag,
    params,
    body: Frontends.BindFrontendBody,
    responses: {
      201: { description: 'Bound.', json: Frontends.FrontendBindingView },
      200: {
        description: 'Rebound, or already bound to that composition.',
        json: Frontends.FrontendBindingView,
      },
    },
    errors: [ErrorCode.UnknownReference, ErrorCode.VersionMismatch],
  },

  resolveFrontend: {
    method: 'get',
    path: `${base}/binding`,
    permission: 'frontend:read',
    summary:
      "Resolve a binding: the composition's preview URL and readiness, waiting up to wait_seconds for it to be ready.",
    tag,
    params,
    query: v.object({
      wait_seconds: v.optional(
        integerParam(
          { min: 0, max: Frontends.maxResolveWaitSeconds },
          `Wait this long for the composition to be ready, failed or ended (default 0, max ${Frontends.maxResolveWaitSeconds}).`,
        ),
      ),
    }),
    responses: {
      200: {
        description: 'The binding, its composition and the outcome: ready, pending, failed or ended.',
        json: Frontends.FrontendResolutionView,
      },
    },
  },

  publishFrontend: write(
    'post',
    {
      path: `${base}/publish`,
      permission: 'frontend:publish',
      summary: 'Record where the frontend revision is published, if expected_version is current.',
      tag,
      params,
      body: Frontends.PublishFrontendBody,
      errors: bindingWriteErrors,
    },
    200,
    { description: 'The binding at its next version.', json: Frontends.FrontendBindingView },
  ),

  recordFrontendCheck: write(
    'post',
    {
      path: `${base}/checks`,
      permission: 'frontend:check',
      summary:
        "Record a frontend check result against a generation of the bound composition; it joins that composition's verification list.",
      tag,
      params,
      body: Checks.FrontendCheckBody,
      errors: bindingWriteErrors,
    },
    201,
    { description: 'The check as the verification list shows it now.', json: Checks.CheckView },
  ),
} as const satisfies Record<string, ApiOperation>;
