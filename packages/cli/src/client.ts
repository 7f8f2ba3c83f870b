/**
 * The typed client as the CLI uses it: bound to the operations a command needs, over the CLI's
 * transport, every failure a CliError with its exit code. `svc version` binds only the service's
 * probes and the credential refresh only the sign-in endpoints, so neither loads the contract.
 */
import { bindClient, type Client, type Transport } from '@svc/client/bind';
import { ApiError, ClientCode } from '@svc/client/errors';
import type { OperationTable } from '@svc/contract/operation';
import { CliError, ExitCode, exitCodeForStatus, LocalCode, localProblem } from './errors.ts';

/** A problem of the client's own in the CLI's terms: its code, its advice, its exit code. */
function fromClient(error: ApiError): CliError {
  const { problem } = error;
  if (problem.code === ClientCode.InvalidInput) {
    return new CliError(
      localProblem(LocalCode.InvalidArgument, problem.detail, problem.errors),
      ExitCode.Usage,
      {
        cause: error,
      },
    );
  }
  if (problem.code !== ClientCode.UnexpectedResponse)
    return new CliError(problem, ExitCode.Failure, { cause: error });
  const unexpected = localProblem(
    LocalCode.UnexpectedResponse,
    `${problem.detail}; is SVC_API_URL pointing at the svc API?`,
  );
  unexpected.status = problem.status;
  const exitCode =
    problem.status !== null && problem.status >= 400 ? exitCodeForStatus(problem.status) : ExitCode.Failure;
  return new CliError(unexpected, exitCode, { cause: error });
}

/** Any failure of a call as the CLI reports it. */
export function cliError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.problem.status !== null && error.problem.code !== ClientCode.UnexpectedResponse) {
    // The server's body as received; what its challenge said goes beside it, for the person.
    return new CliError(error.problem, exitCodeForStatus(error.problem.status), {
      cause: error,
      hint: error.challenge?.error_description ?? null,
    });
  }
  return fromClient(error);
}

const rethrown = <R>(answer: Promise<R>): Promise<R> =>
  answer.catch((error: unknown) => {
    throw cliError(error);
  });

export function cliClient<const T extends OperationTable>(table: T, transport: Transport): Client<T> {
  const client = bindClient(table, transport);
  return {
    call: (operationId, ...args) => rethrown(client.call(operationId, ...args)),
    send: (operationId, ...args) => rethrown(client.send(operationId, ...args)),
  };
}

/** The request a failed call made (`GET /v1/compositions/c-1/diagnosis`), when it got that far. */
export function requestOf(error: CliError): string | null {
  const cause = error.cause;
  return cause instanceof ApiError && cause.request ? `${cause.request.method} ${cause.request.path}` : null;
}
