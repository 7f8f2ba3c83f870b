/**
 * The API as the CLI calls it: one function per route, typed with the request and response types
 * that `@svc/core` infers from the same valibot schemas the server validates with and builds its
 * OpenAPI document from. Nothing here restates a shape.
 */
import type {
  Auth,
  Builds,
  Catalog,
  Compositions,
  Drafts,
  Forge,
  Frontends,
  Insight,
  Installation,
  Page,
  Verification,
} from '@svc/core';
import type * as v from 'valibot';
import { CliError, ExitCode, LocalCode, localProblem } from './errors.ts';
import type { HttpClient, Method } from './http.ts';

export type CreateRequest = v.InferInput<typeof Compositions.CreateCompositionBody>;
export type UpdateRequest = v.InferInput<typeof Compositions.UpdateCompositionBody>;
export type CatalogValidation = ReturnType<typeof Catalog.validate>;
export type CompositionEvent = v.InferOutput<typeof Compositions.EventView>;
export type CheckPage = v.InferOutput<typeof Verification.CheckList>;

export interface PageQuery {
  limit?: number | undefined;
  after?: string | undefined;
}

export interface LogsQuery {
  tail_lines: number;
  max_bytes: number;
  since_seconds?: number | undefined;
  previous?: boolean | undefined;
}

export interface BuildsQuery extends PageQuery {
  component?: string | undefined;
  repository?: string | undefined;
  commit_sha?: string | undefined;
}

const composition = (id: string) => `/v1/compositions/${encodeURIComponent(id)}`;
const componentLogs = (id: string, component: string) =>
  `${composition(id)}/components/${encodeURIComponent(component)}/logs`;
const project = (name: string) => `/v1/projects/${encodeURIComponent(name)}`;
const frontendRevision = (p: string, frontend: string, revision: string) =>
  `${project(p)}/frontends/${encodeURIComponent(frontend)}/revisions/${encodeURIComponent(revision)}`;
const forgePreview = (id: string) => `/v1/forge/previews/${encodeURIComponent(id)}`;
const signIns = (username: string) => `/v1/users/${encodeURIComponent(username)}/sign-ins`;
const body = async <T>(answer: Promise<{ body: T }>): Promise<T> => (await answer).body;

/** The last release without the draft, plan and diagnosis routes (interface spec, part 9). */
const releaseBeforeNewerRoutes = '0.8.0';

type ServerBuild = { service: string; release: string; commit: string };
const serverBuild = (http: HttpClient) =>
  body(http.request<ServerBuild>('GET', '/version', { auth: false, timeoutSeconds: 3 }));

/**
 * The server has no such route: a 405 (the path matches another route, as `POST
 * /v1/compositions/plan` matches `/v1/compositions/{id}`), or a 404 that is the server's "No route"
 * answer rather than a missing resource.
 */
function isNoRoute(error: unknown): boolean {
  if (!(error instanceof CliError)) return false;
  const { status, code, detail } = error.problem;
  return (
    (status === 405 && code === 'method_not_allowed') || (status === 404 && /^No route for /.test(detail))
  );
}

/**
 * A route added after release 0.8.0: on a server without it, the answer says which release the
 * server runs (`GET /version`) and that the command needs a newer one, instead of a bare 404.
 */
async function newerRoute<T>(http: HttpClient, method: Method, path: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!isNoRoute(error)) throw error;
    const server = await serverBuild(http).catch(() => null);
    const runs = server
      ? `runs release ${server.release} (commit ${server.commit})`
      : 'does not say which release it runs (GET /version failed)';
    throw new CliError(
      localProblem(
        LocalCode.ServerTooOld,
        `the server ${runs} and has no route for ${method} ${path}: this command needs a server release newer than ${releaseBeforeNewerRoutes}. Upgrade the server, or use the CLI of the server's release.`,
        [{ path: `${method} ${path}`, message: 'no such route on this server' }],
      ),
      ExitCode.Failure,
      { cause: error },
    );
  }
}

export function api(http: HttpClient) {
  return {
    version: () => serverBuild(http),

    planComposition: (request: unknown) =>
      newerRoute(
        http,
        'POST',
        '/v1/compositions/plan',
        body(http.request<Compositions.PlanView>('POST', '/v1/compositions/plan', { body: request })),
      ),
    createComposition: (request: CreateRequest, idempotencyKey?: string) =>
      body(
        http.request<Compositions.CompositionView>('POST', '/v1/compositions', {
          body: request,
          headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
        }),
      ),
    listCompositions: (query: PageQuery & { project?: string | undefined }) =>
      body(
        http.request<Page<Compositions.CompositionView>>('GET', '/v1/compositions', { query: { ...query } }),
      ),
    getComposition: (id: string) => body(http.request<Compositions.CompositionView>('GET', composition(id))),
    compositionStatus: (id: string, timeoutSeconds?: number) =>
      body(
        http.request<Compositions.CompositionStatusView>(
          'GET',
          `${composition(id)}/status`,
          timeoutSeconds === undefined ? {} : { timeoutSeconds },
        ),
      ),
    compositionEndpoints: (id: string) =>
      body(http.request<Compositions.CompositionEndpointsView>('GET', `${composition(id)}/endpoints`)),
    updateComposition: (id: string, request: UpdateRequest) =>
      body(http.request<Compositions.CompositionView>('PATCH', composition(id), { body: request })),
    destroyComposition: (id: string) =>
      body(http.request<Compositions.CompositionView>('DELETE', composition(id))),
    compositionEvents: (id: string, query: PageQuery) =>
      body(http.request<Page<CompositionEvent>>('GET', `${composition(id)}/events`, { query: { ...query } })),
    compositionLogs: (id: string, component: string, query: LogsQuery) =>
      body(http.request<Insight.LogSnapshot>('GET', componentLogs(id, component), { query: { ...query } })),
    compositionDiagnosis: (id: string) =>
      newerRoute(
        http,
        'GET',
        `${composition(id)}/diagnosis`,
        body(http.request<Insight.DiagnosisView>('GET', `${composition(id)}/diagnosis`)),
      ),
    compositionVerification: (id: string, query: PageQuery) =>
      body(http.request<CheckPage>('GET', `${composition(id)}/verification`, { query: { ...query } })),
    recordCompositionCheck: (
      id: string,
      request: { composition_generation: number; status: string; message: string },
    ) => body(http.request<Verification.CheckView>('POST', `${composition(id)}/checks`, { body: request })),

    validateCatalog: (manifest: unknown) =>
      body(http.request<CatalogValidation>('POST', '/v1/catalog/validate', { body: manifest })),
    applyCatalog: (manifest: unknown) =>
      body(http.request<Catalog.ApplyResult>('POST', '/v1/catalog/apply', { body: manifest })),
    listProjects: (query: PageQuery) =>
      body(http.request<Page<Catalog.ProjectView>>('GET', '/v1/projects', { query: { ...query } })),
    listComponents: (name: string, query: PageQuery) =>
      body(
        http.request<Page<Catalog.ComponentView>>('GET', `${project(name)}/components`, {
          query: { ...query },
        }),
      ),
    publishBuild: (p: string, request: v.InferInput<typeof Builds.PublishBuildBody>) =>
      body(http.request<Builds.Build>('POST', `${project(p)}/builds`, { body: request })),
    listBuilds: (project: string, query: BuildsQuery) =>
      body(
        http.request<Page<Builds.Build>>('GET', `/v1/projects/${encodeURIComponent(project)}/builds`, {
          query: { ...query },
        }),
      ),
    resolveSource: (name: string, query: { repository: string; component: string; ref: string }) =>
      body(
        http.request<Builds.SourceResolution>('GET', `${project(name)}/sources/resolve`, {
          query: { ...query },
        }),
      ),

    getDraft: (name: string) =>
      newerRoute(
        http,
        'GET',
        `${project(name)}/onboarding-draft`,
        body(http.request<Drafts.Draft>('GET', `${project(name)}/onboarding-draft`)),
      ),
    saveDraft: (name: string, draft: unknown) =>
      newerRoute(
        http,
        'PUT',
        `${project(name)}/onboarding-draft`,
        body(http.request<Drafts.Draft>('PUT', `${project(name)}/onboarding-draft`, { body: draft })),
      ),
    deleteDraft: (name: string, revision: number) =>
      newerRoute(
        http,
        'DELETE',
        `${project(name)}/onboarding-draft`,
        body(http.request<null>('DELETE', `${project(name)}/onboarding-draft`, { query: { revision } })),
      ),

    bindFrontend: (p: string, frontend: string, revision: string, compositionId: string) =>
      body(
        http.request<Frontends.FrontendBinding>('PUT', `${frontendRevision(p, frontend, revision)}/binding`, {
          body: { composition_id: compositionId },
        }),
      ),
    resolveFrontend: (
      p: string,
      frontend: string,
      revision: string,
      waitSeconds: number,
      timeoutSeconds: number,
    ) =>
      body(
        http.request<Frontends.FrontendResolution>(
          'GET',
          `${frontendRevision(p, frontend, revision)}/binding`,
          {
            query: { wait_seconds: waitSeconds },
            timeoutSeconds,
          },
        ),
      ),
    publishFrontend: (
      p: string,
      frontend: string,
      revision: string,
      request: { expected_version: number; url: string },
    ) =>
      body(
        http.request<Frontends.FrontendBinding>(
          'POST',
          `${frontendRevision(p, frontend, revision)}/publish`,
          {
            body: request,
          },
        ),
      ),
    recordFrontendCheck: (
      p: string,
      frontend: string,
      revision: string,
      request: { expected_version: number; composition_generation: number; status: string; message: string },
    ) =>
      body(
        http.request<Verification.CheckView>('POST', `${frontendRevision(p, frontend, revision)}/checks`, {
          body: request,
        }),
      ),

    listForgePreviews: (query: PageQuery & { project: string }) =>
      body(http.request<Page<Forge.PreviewView>>('GET', '/v1/forge/previews', { query: { ...query } })),
    getForgePreview: (id: string) => body(http.request<Forge.PreviewView>('GET', forgePreview(id))),
    listForgeDeliveries: (
      query: PageQuery & { project?: string | undefined; repository?: string | undefined },
    ) => body(http.request<Page<Forge.DeliveryView>>('GET', '/v1/forge/deliveries', { query: { ...query } })),
    stopForgePreview: (id: string) =>
      body(http.request<Forge.PreviewView>('POST', `${forgePreview(id)}/stop`)),
    restartForgePreview: (id: string) =>
      body(http.request<Forge.PreviewView>('POST', `${forgePreview(id)}/restart`)),
    putPreviewPolicy: (p: string, repository: string, policy: unknown) =>
      body(
        http.request<Forge.PreviewPolicy>(
          'PUT',
          `${project(p)}/repositories/${encodeURIComponent(repository)}/preview-policy`,
          { body: policy },
        ),
      ),

    listSignIns: (username: string, query: PageQuery) =>
      body(http.request<Page<Auth.SignInView>>('GET', signIns(username), { query: { ...query } })),
    endSignIns: (username: string, id?: string) =>
      http.request<null>(
        'DELETE',
        id === undefined ? signIns(username) : `${signIns(username)}/${encodeURIComponent(id)}`,
      ),

    checkInstallation: (spec: unknown) =>
      body(http.request<Installation.InstallationReport>('POST', '/v1/installation/check', { body: spec })),
    replayDeadLetters: (request: v.InferInput<typeof Compositions.ReplayRequest>) =>
      body(
        http.request<Compositions.ReplayReport>('POST', '/v1/admin/dead-letters/replay', { body: request }),
      ),
    /** Who the credential is; the whole answer, since `auth status` reports its status too. */
    identity: () => http.request<Auth.IdentityView>('GET', '/v1/auth/identity'),
    /** Any authenticated read, to learn whether the server accepts the credential. */
    probeAuth: () => http.request<unknown>('GET', '/v1/projects', { query: { limit: 1 } }),
  };
}

export type Api = ReturnType<typeof api>;
