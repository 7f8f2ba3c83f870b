/**
 * Exit codes and the one error type of the CLI. A `CliError` is a problem (RFC 9457 shape, like the
 * server's) plus an exit code and, where there is one, a result still worth printing on stdout
 * (the last status of a `wait` that timed out). `main` prints it as one JSON line on stderr —
 * advice for the person or agent, never a stack trace.
 */
import { problemBuilder } from '@svc/client/errors';
import type { FieldError, ProblemBody } from '@svc/core';

export const ExitCode = {
  Ok: 0,
  /** The request failed: the server refused it, the API was unreachable, the composition failed. */
  Failure: 1,
  /** Bad command line or local validation; no request was sent. */
  Usage: 2,
  /** `wait` ran out of time before the composition was ready. */
  NotReady: 3,
  /** The server answered 409: generation mismatch, operation in progress, stale revision… */
  Conflict: 4,
  /** Credentials missing, invalid or expired (401, expired saved login). */
  Auth: 5,
  /**
   * The server answered 403: the credential is good, but its grants do not allow this. The same
   * code in every command (6 and 7 are taken by `installation check`).
   */
  Forbidden: 8,
  /** `installation check` (spec 4.3): a check failed. */
  CheckFailed: 1,
  /** `installation check` (spec 4.3): no check failed, but some evidence is missing. */
  CheckIncomplete: 2,
  /** `installation check` only, whose 2 means incomplete: a usage error. Nothing was sent. */
  CheckUsage: 6,
  /** `installation check` only, whose 1 means failed: no verdict (API unreachable or refusing, a CLI bug). */
  CheckNotRun: 7,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The flag (`--ttl`), argument (`<id>`), variable (`SVC_API_URL`) or JSON pointer at fault, and why. */
export type FieldProblem = FieldError;

/** What goes to stderr: the server's problem as received, or a local one of the same shape. */
export type Problem = ProblemBody;

/** Codes of problems the CLI finds itself; each is described in docs/cli.md. */
export const LocalCode = {
  Usage: 'usage',
  InvalidArgument: 'invalid_argument',
  InvalidEnvironment: 'invalid_environment',
  FileUnreadable: 'file_unreadable',
  ApiUnreachable: 'api_unreachable',
  ApiTimeout: 'api_timeout',
  UnexpectedResponse: 'unexpected_response',
  ServerTooOld: 'server_too_old',
  UnknownReference: 'unknown_reference',
  WaitTimeout: 'wait_timeout',
  CompositionFailed: 'composition_failed',
  CompositionEnded: 'composition_ended',
  PlanBlocked: 'plan_blocked',
  CatalogInvalid: 'catalog_invalid',
  InstallationFailed: 'installation_failed',
  InstallationIncomplete: 'installation_incomplete',
  DrainIncomplete: 'drain_incomplete',
  LoginRequired: 'login_required',
  LoginNotSupported: 'login_not_supported',
  InsecureCredentials: 'insecure_credentials',
  InsecureTransport: 'insecure_transport',
  LoginFailed: 'login_failed',
  CredentialsUnreadable: 'credentials_unreadable',
  Internal: 'cli_internal_error',
} as const;
export type LocalCode = (typeof LocalCode)[keyof typeof LocalCode];

const titles: Record<LocalCode, string> = {
  usage: 'Usage error',
  invalid_argument: 'Invalid argument',
  invalid_environment: 'Invalid environment variable',
  file_unreadable: 'File unreadable',
  api_unreachable: 'API unreachable',
  api_timeout: 'API did not answer in time',
  unexpected_response: 'Unexpected response',
  server_too_old: 'Server too old for this command',
  unknown_reference: 'Unknown reference',
  wait_timeout: 'Not ready in time',
  composition_failed: 'Composition failed',
  composition_ended: 'Composition will not become ready',
  plan_blocked: 'Plan has blockers',
  catalog_invalid: 'Catalog manifest invalid',
  installation_failed: 'Installation check failed',
  installation_incomplete: 'Installation check incomplete',
  drain_incomplete: 'Drain incomplete',
  login_required: 'Login required',
  login_not_supported: 'Login not supported',
  insecure_credentials: 'Credentials file not private',
  insecure_transport: 'Credential would travel unencrypted',
  login_failed: 'Login failed',
  credentials_unreadable: 'Credentials file unreadable',
  cli_internal_error: 'CLI internal error',
};

export const localProblem = problemBuilder<LocalCode>('cli.md', titles);

/** Marks a CliError whichever bundle made it (docs/cli.md, start-up time): `instanceof` checks the mark. */
const cliErrorMark = Symbol.for('svc.cli-error');

export class CliError extends Error {
  override name = 'CliError';
  readonly [cliErrorMark] = true;

  /**
   * The commands run from a bundle of their own, with a copy of this class: an error made by one
   * copy (the HTTP client's) must still be a CliError to the other (a command's catch).
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && cliErrorMark in value;
  }
  readonly problem: Problem;
  readonly exitCode: ExitCode;
  /** Printed on stdout before the problem goes to stderr; undefined prints nothing. */
  readonly output: unknown;
  /** The command's own verdict (`installation check`): its exit code is never remapped. */
  readonly verdict: boolean;
  /** A line for the person, on stderr before the problem: why a 401 refused the credential. */
  readonly hint: string | null;

  constructor(
    problem: Problem,
    exitCode: ExitCode,
    options: { output?: unknown; cause?: unknown; verdict?: boolean; hint?: string | null } = {},
  ) {
    super(problem.detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.problem = problem;
    this.exitCode = exitCode;
    this.output = options.output;
    this.verdict = options.verdict ?? false;
    this.hint = options.hint ?? null;
  }
}

/** A usage problem naming the flag or argument at fault: exit 2, nothing sent. */
export function invalidArgument(path: string, message: string): CliError {
  return new CliError(
    localProblem(LocalCode.InvalidArgument, `${path}: ${message}`, [{ path, message }]),
    ExitCode.Usage,
  );
}

export function usageError(detail: string, errors: FieldProblem[] = []): CliError {
  return new CliError(localProblem(LocalCode.Usage, detail, errors), ExitCode.Usage);
}

/** The exit code for a problem the server answered with. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 409) return ExitCode.Conflict;
  if (status === 401) return ExitCode.Auth;
  if (status === 403) return ExitCode.Forbidden;
  return ExitCode.Failure;
}

/** A bad environment variable, named: exit 2, nothing sent. */
export function invalidEnvironment(variable: string, message: string): CliError {
  return new CliError(
    localProblem(LocalCode.InvalidEnvironment, `${variable}: ${message}`, [{ path: variable, message }]),
    ExitCode.Usage,
  );
}
