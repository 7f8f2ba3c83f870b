import { bodyLimits, bodyProblems, ErrorCode, ProblemError, validationFailed } from '@svc/core';
import type { Context } from 'hono';

/**
 * The body as JSON; an empty body reads as undefined. Before any route sees it: malformed JSON is a
 * 400 naming the parse error, nesting deeper than the limit a 413, a reserved key (`__proto__`,
 * `constructor`, `prototype`) anywhere a 422 naming it.
 */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ProblemError(
      ErrorCode.MalformedJson,
      `The body is not valid JSON: ${(error as Error).message}`,
    );
  }
  const problems = bodyProblems(body);
  if (problems.tooDeep) {
    throw new ProblemError(
      ErrorCode.PayloadTooLarge,
      `The body nests arrays and objects deeper than ${bodyLimits.maxDepth} levels.`,
    );
  }
  if (problems.reserved.length) throw validationFailed(problems.reserved);
  return body;
}
