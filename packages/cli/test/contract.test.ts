/**
 * Every route the CLI calls is a route of the server's OpenAPI document (generated from the same
 * @svc/core schemas the CLI's types come from).
 */
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { expect, it } from 'vitest';
import { api } from '../src/api.ts';
import type { HttpClient, Method } from '../src/http.ts';

let stack: Stack;
useTestStack({}, (started) => {
  stack = started.stack;
});

it('calls only routes of the OpenAPI document, with their methods', async () => {
  const called: string[] = [];
  const recorder: HttpClient = {
    async request<T>(method: Method, path: string) {
      called.push(
        `${method.toLowerCase()} ${path
          .replace('/c-sample', '/{id}')
          .replace('/pr-sample', '/{id}')
          .replace('/repositories/a%2Fb', '/repositories/{repository}')
          .replace('/projects/demo', '/projects/{project}')
          .replace('/components/service-b', '/components/{component}')
          .replace('/users/alice', '/users/{username}')
          .replace('/sign-ins/ses-sample', '/sign-ins/{id}')
          .replace(
            `/frontends/web/revisions/${'f'.repeat(40)}`,
            '/frontends/{frontend}/revisions/{revision}',
          )}`,
      );
      return { status: 200, headers: {}, body: undefined as T };
    },
    postForm() {
      throw new Error('the API client posts no forms: those are the OAuth endpoints, outside /v1');
    },
  };
  const client = api(recorder);
  const id = 'c-sample';
  const sha = 'f'.repeat(40);
  const calls: Record<keyof typeof client, () => Promise<unknown>> = {
    version: () => client.version(),
    planComposition: () => client.planComposition({}),
    createComposition: () => client.createComposition({ project: 'demo', baseline: 'staging', name: 'x' }),
    listCompositions: () => client.listCompositions({}),
    getComposition: () => client.getComposition(id),
    compositionStatus: () => client.compositionStatus(id),
    compositionEndpoints: () => client.compositionEndpoints(id),
    updateComposition: () => client.updateComposition(id, { expected_generation: 1, overrides: {} }),
    destroyComposition: () => client.destroyComposition(id),
    compositionEvents: () => client.compositionEvents(id, {}),
    compositionLogs: () => client.compositionLogs(id, 'service-b', { tail_lines: 1, max_bytes: 1 }),
    compositionDiagnosis: () => client.compositionDiagnosis(id),
    compositionVerification: () => client.compositionVerification(id, {}),
    validateCatalog: () => client.validateCatalog({}),
    applyCatalog: () => client.applyCatalog({}),
    listProjects: () => client.listProjects({}),
    listComponents: () => client.listComponents('demo', {}),
    listBuilds: () => client.listBuilds('demo', {}),
    resolveSource: () =>
      client.resolveSource('demo', { repository: 'a/b', component: 'service-b', ref: 'main' }),
    getDraft: () => client.getDraft('demo'),
    saveDraft: () => client.saveDraft('demo', {}),
    deleteDraft: () => client.deleteDraft('demo', 1),
    bindFrontend: () => client.bindFrontend('demo', 'web', sha, id),
    resolveFrontend: () => client.resolveFrontend('demo', 'web', sha, 0, 5),
    publishFrontend: () =>
      client.publishFrontend('demo', 'web', sha, { expected_version: 1, url: 'https://x/' }),
    recordFrontendCheck: () =>
      client.recordFrontendCheck('demo', 'web', sha, {
        expected_version: 1,
        composition_generation: 1,
        status: 'passed',
        message: 'ok',
      }),
    probeAuth: () => client.probeAuth(),
    identity: () => client.identity(),
    checkInstallation: () => client.checkInstallation({}),
    replayDeadLetters: () => client.replayDeadLetters({ dry_run: true }),
    recordCompositionCheck: () =>
      client.recordCompositionCheck(id, { composition_generation: 1, status: 'passed', message: 'ok' }),
    publishBuild: () =>
      client.publishBuild('demo', {
        component: 'x',
        repository: 'a/b',
        commit_sha: sha,
        ref: 'main',
        image: 'x',
      }),
    listForgePreviews: () => client.listForgePreviews({ project: 'demo' }),
    getForgePreview: () => client.getForgePreview('pr-sample'),
    listForgeDeliveries: () => client.listForgeDeliveries({ repository: 'a/b' }),
    stopForgePreview: () => client.stopForgePreview('pr-sample'),
    restartForgePreview: () => client.restartForgePreview('pr-sample'),
    putPreviewPolicy: () => client.putPreviewPolicy('demo', 'a/b', {}),
    listSignIns: () => client.listSignIns('alice', {}),
    endSignIns: async () => {
      await client.endSignIns('alice');
      await client.endSignIns('alice', 'ses-sample');
    },
  };
  for (const call of Object.values(calls)) await call();

  const document = (await (await fetch(`${stack.apiUrl}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const served = new Set(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m} ${path}`),
    ),
  );
  const missing = called.filter((route) => !served.has(route));
  expect(missing).toEqual([]);
  expect(called).toContain('get /version');
  expect((await fetch(`${stack.apiUrl}/version`)).status).toBe(200);
});
