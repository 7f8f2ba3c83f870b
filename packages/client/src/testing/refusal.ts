/** What the client's own tests share. */
import { expect } from 'vitest';
import { ApiError } from '../errors.ts';

/** The ApiError a call rejected with (the matcher fails on anything else). */
export async function refusal(call: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await call.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
