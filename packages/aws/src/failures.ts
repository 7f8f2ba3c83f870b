/**
 * AWS failures classified where the SDK answers: one middleware per client turns an error that
 * says the service is unavailable into core's DependencyUnavailableError. It sits outside the
 * SDK's own retries, so it sees only what is left once they gave up.
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { Pluggable, SdkError } from '@smithy/types';
import { type Dependency, DependencyUnavailableError } from '@svc/core';

/**
 * Throttling, a 5xx, a timeout or a dropped connection: the classes the SDK itself retries
 * (abandoned requests excepted). Client errors, failed conditions and cancelled transactions are
 * answers and pass unchanged.
 */
function isServiceUnavailable(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  // Every error that reaches this middleware came through the SDK, which shapes it as an SdkError.
  const sdkError = error as SdkError;
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
}

export function dependencyFailures<Input extends object, Output extends object>(
  dependency: Dependency,
): Pluggable<Input, Output> {
  return {
    applyToStack(stack) {
      stack.add(
        (next) => async (args) => {
          try {
            return await next(args);
          } catch (error) {
            if (!isServiceUnavailable(error)) throw error;
            throw new DependencyUnavailableError(dependency, error.message || error.name, error);
          }
        },
        { step: 'initialize', priority: 'high', name: 'dependencyFailures', override: true },
      );
    },
  };
}
