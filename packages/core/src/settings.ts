/**
 * A process's settings come from its environment, parsed once at its entry with one valibot
 * schema whose parts each package declares (packages/wiring puts them together). What is wrong is
 * said once, every bad variable named, and never with its value: the environment holds secrets.
 */
import * as v from 'valibot';

/** One bad variable (`AUTH_SETTINGS.public_origin` for a field inside a JSON variable) and what it must be. */
export interface SettingsProblem {
  variable: string;
  message: string;
}

export class SettingsError extends Error {
  override name = 'SettingsError';
  readonly problems: readonly SettingsProblem[];

  constructor(problems: readonly SettingsProblem[]) {
    super(`invalid environment: ${problems.map((p) => `${p.variable} ${p.message}`).join('; ')}`);
    this.problems = problems;
  }
}

/**
 * What an issue without a message of its own says: never valibot's default, which quotes the value
 * it received.
 */
function withoutValue(issue: v.BaseIssue<unknown>): string {
  if (issue.input === undefined) return 'is not set';
  // A strict object's unknown key.
  if (issue.expected === 'never') return 'is not a known field';
  return issue.expected ? `must be ${issue.expected}` : 'is invalid';
}

/** Variables are upper case: what a composed schema puts before them (its part: `aws`, `auth`) is no part of the name. */
function variableOf(issue: v.BaseIssue<unknown>): string {
  const keys = (issue.path ?? []).map((item) => String(item.key));
  const first = keys.findIndex((key) => /^[A-Z][A-Z0-9_]*$/.test(key));
  return first === -1 ? keys.join('.') || '(environment)' : keys.slice(first).join('.');
}

/** `env` through `schema`; a SettingsError naming every bad variable otherwise. */
export function parseEnvironment<TSchema extends v.GenericSchema>(
  schema: TSchema,
  env: Readonly<Record<string, string | undefined>>,
): v.InferOutput<TSchema> {
  const parsed = v.safeParse(schema, env, { message: withoutValue });
  if (parsed.success) return parsed.output;
  const problems = new Map<string, SettingsProblem>();
  for (const issue of parsed.issues) {
    const problem = { variable: variableOf(issue), message: issue.message };
    problems.set(`${problem.variable} ${problem.message}`, problem);
  }
  throw new SettingsError([...problems.values()]);
}

/** Where an issue a part finds across variables points: `variable`, or a field inside it. */
export function variablePath(
  env: Record<string, unknown>,
  variable: string,
  ...fields: string[]
): [v.IssuePathItem, ...v.IssuePathItem[]] {
  const at = (key: string): v.ObjectPathItem => ({
    type: 'object',
    origin: 'value',
    input: env,
    key,
    value: undefined,
  });
  return [at(variable), ...fields.map(at)];
}

const tcpPort = (fallback: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.digits('must be a TCP port number'),
      v.transform(Number),
      v.minValue(1, 'must be a TCP port number'),
      v.maxValue(65_535, 'must be a TCP port number'),
    ),
    String(fallback),
  );

const ServerVariables = {
  HOST: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty')), '127.0.0.1'),
  PORT: tcpPort(8081),
};

/** Where a process on Node listens: `HOST` (default 127.0.0.1) and `PORT` (default 8081). */
export const ServerEnvironment = v.pipe(
  v.object(ServerVariables),
  v.transform((env) => ({ host: env.HOST, port: env.PORT })),
);

/**
 * `npm start`'s: the API's `HOST` and `PORT`, and the ports and state of what it runs beside the
 * API: `GATEWAY_PORT` (8082, `local`'s preview gateway), `FORGE_PORT` (8083, the local forge),
 * `POD_READY_DELAY_MS` (1000, how long a local pod takes to become Ready) and `SVC_STATE_DIR`
 * (`.svc`, relative to where it runs).
 */
export const LocalStackEnvironment = v.pipe(
  v.object({
    ...ServerVariables,
    GATEWAY_PORT: tcpPort(8082),
    FORGE_PORT: tcpPort(8083),
    POD_READY_DELAY_MS: v.optional(
      v.pipe(v.string(), v.digits('must be a number of milliseconds'), v.transform(Number)),
      '1000',
    ),
    SVC_STATE_DIR: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty')), '.svc'),
  }),
  v.transform((env) => ({
    host: env.HOST,
    port: env.PORT,
    gatewayPort: env.GATEWAY_PORT,
    forgePort: env.FORGE_PORT,
    podReadyDelayMs: env.POD_READY_DELAY_MS,
    stateDir: env.SVC_STATE_DIR,
  })),
);

/** `AUTH_SETTINGS.public_origin`: the origin people and browsers reach the service (and its console) at. */
export const PublicOrigin = v.optional(v.pipe(v.string(), v.url()));

/**
 * The service's public origin as a process that does not serve people reads it (the worker, for
 * the console's links in what it writes to a pull request): the API's `AUTH_SETTINGS.public_origin`,
 * the one setting. Unset (dev mode, a stage without one): null, and nothing links to the console.
 */
export const PublicOriginEnvironment = v.pipe(
  v.object({
    AUTH_SETTINGS: v.optional(
      v.pipe(
        v.string(),
        v.transform((text) => text.trim() || '{}'),
        v.parseJson(undefined, 'must be JSON'),
        v.looseObject({ public_origin: PublicOrigin }),
      ),
      '{}',
    ),
  }),
  v.transform((env) => ({
    publicOrigin: env.AUTH_SETTINGS.public_origin ? new URL(env.AUTH_SETTINGS.public_origin).origin : null,
  })),
);
