/**
 * Kubernetes API failures classified where client-node answers: the API server throttling or
 * failing (429, 5xx), or no connection to it, becomes core's DependencyUnavailableError. Any other
 * answer (404, 409, 422, a 403 from RBAC) is the cluster's reply and passes unchanged.
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { SdkError } from '@smithy/types';
import { Dependency, DependencyUnavailableError } from '@svc/core';

/** The HTTP status of an answer client-node turned into an ApiException. */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Socket and undici error codes of a connection that could not be made or was lost. */
const connectionErrorCode =
  /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR_\w+)$/;

function connectionErrorCodeOf(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (typeof e.code === 'string' && connectionErrorCode.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** undici's fetch rejects every request it could not complete with this TypeError, the reason in `cause`. */
const isFetchFailure = (error: unknown) => error instanceof TypeError && error.message === 'fetch failed';

/** On AWS the kubeconfig comes from EKS's DescribeCluster, which fails the AWS SDK's way. */
function isEksUnavailable(error: unknown): boolean {
  if (!(error instanceof Error) || !('$metadata' in error)) return false;
  const sdkError = error as SdkError;
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
}

/** The error to throw for a failed Kubernetes API call. */
export function classified(error: unknown): unknown {
  const status = statusOf(error);
  if (status !== undefined) {
    if (status !== 429 && status < 500) return error;
    const said = statusText(error, 'message');
    return new DependencyUnavailableError(
      Dependency.Cluster,
      `HTTP ${status}${said ? `: ${said}` : ''}`,
      error,
    );
  }
  const code = connectionErrorCodeOf(error);
  if (code === undefined && !isFetchFailure(error) && !isEksUnavailable(error)) return error;
  const message = String((error as Error).message).split('\n')[0] ?? '';
  const detail = code === undefined || message.includes(code) ? message : `${message} (${code})`;
  return new DependencyUnavailableError(Dependency.Cluster, detail, error);
}

/** A field of the Status object the API server answered with; '' when there is none. */
function statusText(error: unknown, field: 'reason' | 'message'): string {
  let body = (error as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {}
  }
  const value = (body as Record<string, unknown> | null | undefined)?.[field];
  return typeof value === 'string' ? value : '';
}
