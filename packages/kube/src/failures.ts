/**
 * Kubernetes API failures classified where client-node answers: the API server throttling or
 * failing (429, 5xx), or no connection to it, becomes core's DependencyUnavailableError. Any other
 * answer (404, 409, 422, a 403 from RBAC) is the cluster's reply, a KubernetesAnswerError.
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

/** A word of the API server's own vocabulary (a Status `reason`, a cause's `reason`), or ''. */
const word = (value: unknown) => (typeof value === 'string' && /^[A-Za-z]{1,64}$/.test(value) ? value : '');
const fieldPath = (value: unknown) =>
  typeof value === 'string' && /^[\w.[\]/-]{1,200}$/.test(value) ? value : '';

/**
 * An answer of the API server other than success, as far as it may be repeated: its HTTP status,
 * the Status object's `reason` (`Forbidden`, `Invalid`) and the field paths and reasons of its
 * causes, each checked to be such a word or path. Never the Status's message, nor client-node's
 * text of the answer (its body and headers): a proxy or a hostile server can echo what we sent,
 * our Authorization header included, into them, and these errors end up in refusals and logs.
 */
class KubernetesAnswerError extends Error {
  override name = 'KubernetesAnswerError';
  /** The HTTP status, where client-node keeps it (`statusOf` reads both). */
  readonly code: number;
  readonly reason: string;
  /** `field: Reason` of each cause of a refusal (422), at most five. */
  readonly causes: readonly string[];
  constructor(code: number, reason: string, causes: readonly string[]) {
    super(`HTTP ${code}${reason ? ` ${reason}` : ''}${causes.length ? ` (${causes.join('; ')})` : ''}`);
    this.code = code;
    this.reason = reason;
    this.causes = causes;
  }
}

function answerError(error: unknown, status: number): KubernetesAnswerError {
  let body = (error as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {}
  }
  const answered = body as { reason?: unknown; details?: { causes?: unknown } } | null | undefined;
  const causes = Array.isArray(answered?.details?.causes) ? (answered.details.causes as unknown[]) : [];
  return new KubernetesAnswerError(
    status,
    word(answered?.reason),
    causes.slice(0, 5).flatMap((c) => {
      const { field, reason } = (c ?? {}) as { field?: unknown; reason?: unknown };
      const [path, said] = [fieldPath(field), word(reason)];
      return path && said ? [`${path}: ${said}`] : said ? [said] : [];
    }),
  );
}

/** The error to throw for a failed Kubernetes API call: never one quoting what the server sent. */
export function classified(error: unknown): unknown {
  const status = statusOf(error);
  if (status !== undefined) {
    const answer = answerError(error, status);
    if (status !== 429 && status < 500) return answer;
    return new DependencyUnavailableError(Dependency.Cluster, answer.message, answer);
  }
  const code = connectionErrorCodeOf(error);
  if (code === undefined && !isFetchFailure(error) && !isEksUnavailable(error)) return error;
  const message = String((error as Error).message).split('\n')[0] ?? '';
  const detail = code === undefined || message.includes(code) ? message : `${message} (${code})`;
  return new DependencyUnavailableError(Dependency.Cluster, detail, error);
}
