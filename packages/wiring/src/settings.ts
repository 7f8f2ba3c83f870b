/**
 * The service's settings: one valibot schema of parts, each declared by the package it configures
 * (aws: the table, queues and URLs; auth: the mode; kube: where the cluster is; github: the app;
 * core's origin: the service's public origin, the worker's too; core's server: where a process on
 * Node listens). Each entry reads the parts it needs, with what
 * it requires of them, in one parse.
 */
import { awsEnvironment, type LinkedResources, loadLinkedSecrets } from '@svc/aws';
import {
  Auth,
  LocalStackEnvironment,
  PublicOriginEnvironment,
  parseEnvironment,
  ServerEnvironment,
} from '@svc/core';
import { GitHubEnvironment } from '@svc/github';
import { KubeEnvironment } from '@svc/kube/settings';
import * as v from 'valibot';

/** What an entry requires beyond what every entry does. */
interface Needs {
  /** It hands out page cursors and agent confirmations: CURSOR_KEY, the same in every instance. */
  cursorKey: boolean;
  /** It replays dead jobs: DEAD_LETTER_QUEUE_URL. */
  deadLetterQueue: boolean;
  /** It may run in dev mode: the API on Node and the local stack, never a Lambda function. */
  allowDev: boolean;
}

const partsOf = (needs: Needs) =>
  v.object({
    aws: awsEnvironment(needs),
    auth: Auth.authEnvironment(needs),
    kube: KubeEnvironment,
    github: GitHubEnvironment,
    origin: PublicOriginEnvironment,
  });

/** The parts an entry reads, each of them given the whole environment. */
type Parts = {
  aws?: unknown;
  auth?: unknown;
  kube?: unknown;
  github?: unknown;
  origin?: unknown;
  server?: unknown;
};

/** Each part reads the whole environment, so one parse names every bad variable of every part. */
const fromEnvironment = <TParts extends v.GenericSchema<Parts, unknown>>(parts: TParts) =>
  v.pipe(
    v.record(v.string(), v.optional(v.string())),
    v.transform((env): Parts => ({ aws: env, auth: env, kube: env, github: env, origin: env, server: env })),
    parts,
  );

/** Every part, as the API reads them: dev mode only where `allowDev` (its Node entry, the local stack). */
export const ServiceSettings = (options: { allowDev: boolean }) =>
  fromEnvironment(partsOf({ cursorKey: true, deadLetterQueue: true, allowDev: options.allowDev }));
export type ServiceSettings = v.InferOutput<ReturnType<typeof ServiceSettings>>;

/** The API on Node (`packages/api/src/entries/main.ts`): every part, dev mode allowed, and where it listens. */
export const NodeServiceSettings = fromEnvironment(
  v.object({
    ...partsOf({ cursorKey: true, deadLetterQueue: true, allowDev: true }).entries,
    server: ServerEnvironment,
  }),
);

/**
 * `npm start`: where the API listens and what runs beside it (the gateway's and the forge's ports,
 * the pods' delay, the state). The service's own parts it builds itself (the local stack's
 * `stackEnvironment`), through the same parse.
 */
export const LocalStackSettings = fromEnvironment(v.object({ server: LocalStackEnvironment }));

/** The worker: no auth mode (it serves no request), the dead-letter queue is the API's to replay. */
export const WorkerSettings = fromEnvironment(
  v.omit(partsOf({ cursorKey: true, deadLetterQueue: false, allowDev: false }), ['auth']),
);

const storageOnly = { cursorKey: false, deadLetterQueue: false, allowDev: false };

/** The webhook: the table and the job queue, and only the webhook secrets of the app. */
export const WebhookSettings = fromEnvironment(v.pick(partsOf(storageOnly), ['aws', 'github']));

/** The operator's scripts (`npm run token:issue`, `user:create`): the table. */
export const ScriptSettings = fromEnvironment(v.pick(partsOf(storageOnly), ['aws']));

/**
 * `env` through an entry's settings, once, at the entry. On Lambda the function's linked SST
 * secrets are copied into `env` first (packages/aws `loadLinkedSecrets`). A SettingsError names
 * every bad variable, never a value.
 */
export function settingsFromEnvironment<TSchema extends v.GenericSchema>(
  schema: TSchema,
  env: Record<string, string | undefined>,
  linked?: LinkedResources,
): v.InferOutput<TSchema> {
  loadLinkedSecrets(env, linked);
  return parseEnvironment(schema, env);
}
