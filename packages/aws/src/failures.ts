/**
 * AWS failures classified where the SDK answers: one middleware per client turns an error that
 * says the service is unavailable into core's DependencyUnavailableError. It sits outside the
 * SDK's own retries, so it sees only what is left once they gave up. A second, on DynamoDB only,
 * runs a transaction cancelled for a conflict again.
 */
import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { Pluggable, SdkError } from '@smithy/types';
import { Dependency, DependencyUnavailableError } from '@svc/core';

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

/** Attempts of a transaction another transaction holds an item of, the first included. */
const conflictAttempts = 4;

/** Refused only because a transaction held one of its items: nothing else was wrong. */
function isConflictOnly(error: unknown): boolean {
  if (error instanceof TransactionConflictException) return true;
  if (!(error instanceof TransactionCanceledException)) return false;
  const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
  return (
    codes.includes('TransactionConflict') &&
    codes.every((code) => code === 'TransactionConflict' || code === 'None')
  );
}

/**
 * Runs a transaction again (jittered, 25–50 ms, doubling) when DynamoDB cancelled it for a
 * conflict: two transactions on one item at once, such as two creates taking places of one
 * project's quota. The SDK does not retry a cancellation, and AWS asks callers to; one that keeps
 * conflicting is an unavailable dependency (503, retried by the caller), never a 500.
 */
export function transactionConflicts<Input extends object, Output extends object>(): Pluggable<
  Input,
  Output
> {
  return {
    applyToStack(stack) {
      stack.add(
        (next) => async (args) => {
          for (let attempt = 1; ; attempt++) {
            try {
              return await next(args);
            } catch (error) {
              if (!isConflictOnly(error)) throw error;
              if (attempt >= conflictAttempts)
                throw new DependencyUnavailableError(
                  Dependency.DynamoDB,
                  'a transaction kept conflicting with others on the same item',
                  error,
                );
              const base = 25 * 2 ** (attempt - 1);
              await new Promise((resolve) => setTimeout(resolve, base + Math.random() * base));
            }
          }
        },
        { step: 'initialize', priority: 'normal', name: 'transactionConflicts', override: true },
      );
    },
  };
}
