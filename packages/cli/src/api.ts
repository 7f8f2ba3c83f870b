/**
 * The service's operations as commands call them: the typed client (`@svc/client`) bound to the
 * whole contract over the CLI's transport, every failure a CliError. Nothing here restates a path
 * or a shape: both come from the contract, and the answers are typed by it. The contract is read
 * on the first call, so a command's `--help` or a usage error never evaluates it.
 */
import type { Client } from '@svc/client/bind';
import type { OperationId, Operations } from '@svc/contract';
import { getVersion } from '@svc/contract/service';
import { cliClient, requestOf } from './client.ts';
import type { Context } from './context.ts';
import { CliError, ExitCode, LocalCode, localProblem } from './errors.ts';

/** The last release without the draft, plan and diagnosis routes (interface spec, part 9). */
const releaseBeforeNewerRoutes = '0.8.0';
const newerRoutes: ReadonlySet<OperationId> = new Set([
  'planComposition',
  'getDiagnosis',
  'getOnboardingDraft',
  'saveOnboardingDraft',
  'discardOnboardingDraft',
]);

/**
 * The server has no such route: a 405 (the path matches another route, as `POST
 * /v1/compositions/plan` matches `/v1/compositions/{id}`), or a 404 that is the server's "No route"
 * answer rather than a missing resource.
 */
function isNoRoute(error: unknown): error is CliError {
  if (!(error instanceof CliError)) return false;
  const { status, code, detail } = error.problem;
  return (
    (status === 405 && code === 'method_not_allowed') || (status === 404 && /^No route for /.test(detail))
  );
}

/**
 * A route added after release 0.8.0 that the server lacks: the answer says which release the
 * server runs (`GET /version`) and that the command needs a newer one, instead of a bare 404.
 */
async function serverTooOld(context: Context, error: CliError): Promise<CliError> {
  const server = await cliClient({ getVersion }, context.transport)
    .call('getVersion', undefined, { timeoutSeconds: 3 })
    .catch(() => null);
  const runs = server
    ? `runs release ${server.release} (commit ${server.commit})`
    : 'does not say which release it runs (GET /version failed)';
  const route = requestOf(error) ?? 'this route';
  return new CliError(
    localProblem(
      LocalCode.ServerTooOld,
      `the server ${runs} and has no route for ${route}: this command needs a server release newer than ${releaseBeforeNewerRoutes}. Upgrade the server, or use the CLI of the server's release.`,
      [{ path: route, message: 'no such route on this server' }],
    ),
    ExitCode.Failure,
    { cause: error },
  );
}

export function api(context: Context): Client<Operations> {
  let client: Promise<Client<Operations>> | undefined;
  const bound = () => {
    client ??= import('@svc/contract').then(({ operations }) => cliClient(operations, context.transport));
    return client;
  };
  const newer = async <R>(operationId: OperationId, answer: Promise<R>): Promise<R> => {
    try {
      return await answer;
    } catch (error) {
      if (!newerRoutes.has(operationId) || !isNoRoute(error)) throw error;
      throw await serverTooOld(context, error);
    }
  };
  return {
    call: (operationId, ...args) =>
      newer(
        operationId,
        bound().then((c) => c.call(operationId, ...args)),
      ),
    send: (operationId, ...args) =>
      newer(
        operationId,
        bound().then((c) => c.send(operationId, ...args)),
      ),
  };
}

export type Api = ReturnType<typeof api>;
