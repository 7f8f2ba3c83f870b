import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parseEnvironment, SettingsError, variablePath } from './settings.ts';

const Part = v.object({
  TABLE_NAME: v.pipe(v.string(), v.minLength(3, 'must be at least 3 characters')),
  QUEUE_URL: v.pipe(v.string(), v.regex(/^https?:\/\//)),
  LIMITS: v.optional(
    v.pipe(v.string(), v.parseJson(), v.strictObject({ per_minute: v.optional(v.number()) })),
    '{}',
  ),
});
const Composed = v.pipe(
  v.looseObject({}),
  v.transform((env) => ({ aws: env, other: env })),
  v.object({
    aws: Part,
    other: v.pipe(
      v.object({ MODE: v.optional(v.string()) }),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        if (dataset.value.MODE === 'on') return dataset.value.MODE;
        addIssue({ message: 'must be "on"', path: variablePath(dataset.value, 'MODE') });
        return NEVER;
      }),
    ),
  }),
);

function problemsOf(env: Record<string, string | undefined>) {
  try {
    parseEnvironment(Composed, env);
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('parsed');
}

describe('parseEnvironment', () => {
  it('returns what the schema makes of a good environment', () => {
    expect(parseEnvironment(Part, { TABLE_NAME: 'svc', QUEUE_URL: 'http://q' })).toEqual({
      TABLE_NAME: 'svc',
      QUEUE_URL: 'http://q',
      LIMITS: {},
    });
  });

  it('names every bad variable in one error, across the parts, without the part', () => {
    const error = problemsOf({ TABLE_NAME: 'ab', LIMITS: '{"per_minute":"x","extra":1}' });
    expect(error.problems).toEqual([
      { variable: 'TABLE_NAME', message: 'must be at least 3 characters' },
      { variable: 'QUEUE_URL', message: 'is not set' },
      { variable: 'LIMITS.per_minute', message: 'must be number' },
      { variable: 'LIMITS.extra', message: 'is not a known field' },
      { variable: 'MODE', message: 'must be "on"' },
    ]);
    expect(error.message).toBe(
      'invalid environment: TABLE_NAME must be at least 3 characters; QUEUE_URL is not set; LIMITS.per_minute must be number; LIMITS.extra is not a known field; MODE must be "on"',
    );
  });

  it('never says a value, whatever valibot would have quoted', () => {
    const secret = 'sk-very-secret-value-0123456789';
    const error = problemsOf({
      TABLE_NAME: secret.slice(0, 2),
      QUEUE_URL: secret,
      LIMITS: `{"per_minute":"${secret}"}`,
      MODE: secret,
    });
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('sk');
    expect(problemsOf({ TABLE_NAME: 'svc', QUEUE_URL: 'http://q', LIMITS: secret }).message).not.toContain(
      secret,
    );
  });
});
