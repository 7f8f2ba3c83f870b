import { ErrorCode, Frontends, ProblemError, Verification } from '@svc/core';
import type { Context } from 'hono';
import type { Registry } from '../registry.ts';
import { integerQuery, readJson } from '../request.ts';
import { pathName, projectName } from './params.ts';

const tag = 'frontends';
const base = '/v1/projects/{project}/frontends/{frontend}/revisions/{revision}';
/** A write against an existing binding: publishing it, recording a check on it. */
const bindingWriteErrors = [
  ErrorCode.NotFound,
  ErrorCode.MalformedJson,
  ErrorCode.ValidationFailed,
  ErrorCode.VersionMismatch,
  ErrorCode.UnsupportedMediaType,
  ErrorCode.PayloadTooLarge,
];

/** The binding a path names; a frontend or revision that cannot exist is simply not found. */
function bindingRef(c: Context): Frontends.BindingRef {
  const project = projectName(c);
  const frontend = pathName(c, 'frontend', 'frontend');
  const revision = c.req.param('revision') ?? '';
  if (!Frontends.frontendRevisionPattern.test(revision)) {
    throw new ProblemError(
      ErrorCode.NotFound,
      `revision "${revision}" not found: revisions are full lowercase hex commit SHAs`,
    );
  }
  return { project, frontend, revision };
}

export function frontendRoutes(registry: Registry, deps: Frontends.FrontendDeps): void {
  registry.add(
    {
      method: 'put',
      path: `${base}/binding`,
      operationId: 'bindFrontend',
      permission: 'frontend:bind',
      summary:
        'Bind a static frontend revision to a composition of the project; rebinding to another composition gives the next version.',
      tag,
      body: Frontends.BindFrontendBody,
      responses: {
        201: { description: 'Bound.', schema: Frontends.FrontendBindingView },
        200: {
          description: 'Rebound, or already bound to that composition.',
          schema: Frontends.FrontendBindingView,
        },
      },
      errors: [
        ErrorCode.NotFound,
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.UnknownReference,
        ErrorCode.VersionMismatch,
        ErrorCode.UnsupportedMediaType,
        ErrorCode.PayloadTooLarge,
      ],
    },
    async (c) => {
      const { created, binding } = await Frontends.bind(
        deps,
        c.get('identity'),
        bindingRef(c),
        await readJson(c),
      );
      return c.json(binding, created ? 201 : 200);
    },
  );

  registry.add(
    {
      method: 'get',
      path: `${base}/binding`,
      operationId: 'resolveFrontend',
      permission: 'frontend:read',
      summary:
        "Resolve a binding: the composition's preview URL and readiness, waiting up to wait_seconds for it to be ready.",
      tag,
      query: [
        {
          name: 'wait_seconds',
          description: `Wait this long for the composition to be ready, failed or ended (default 0, max ${Frontends.maxResolveWaitSeconds}).`,
          schema: { type: 'integer', minimum: 0, maximum: Frontends.maxResolveWaitSeconds },
        },
      ],
      responses: {
        200: {
          description: 'The binding, its composition and the outcome: ready, pending, failed or ended.',
          schema: Frontends.FrontendResolutionView,
        },
      },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => {
      const ref = bindingRef(c);
      const wait = integerQuery(c, 'wait_seconds', { min: 0, max: Frontends.maxResolveWaitSeconds }) ?? 0;
      return c.json(await Frontends.resolve(deps, ref, wait));
    },
  );

  registry.add(
    {
      method: 'post',
      path: `${base}/publish`,
      operationId: 'publishFrontend',
      permission: 'frontend:publish',
      summary: 'Record where the frontend revision is published, if expected_version is current.',
      tag,
      body: Frontends.PublishFrontendBody,
      responses: {
        200: { description: 'The binding at its next version.', schema: Frontends.FrontendBindingView },
      },
      errors: bindingWriteErrors,
    },
    async (c) => c.json(await Frontends.publish(deps, c.get('identity'), bindingRef(c), await readJson(c))),
  );

  registry.add(
    {
      method: 'post',
      path: `${base}/checks`,
      operationId: 'recordFrontendCheck',
      permission: 'frontend:check',
      summary:
        "Record a frontend check result against a generation of the bound composition; it joins that composition's verification list.",
      tag,
      body: Frontends.FrontendCheckBody,
      responses: {
        201: {
          description: 'The check as the verification list shows it now.',
          schema: Verification.CheckView,
        },
      },
      errors: bindingWriteErrors,
    },
    async (c) =>
      c.json(await Frontends.recordCheck(deps, c.get('identity'), bindingRef(c), await readJson(c)), 201),
  );
}
